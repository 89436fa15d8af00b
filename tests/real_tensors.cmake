# Chapter 07, real tensors: chapter tests, the 64-bit test, the known-wrong bf16 statistics,
# normlab check, SASS checks, sanitizer runs and the ex07 grader.

# GPU: every op, dtype, weight dtype and option against the float64 reference (cases shared
# with the known-wrong test in gpu/ch07_cases.hpp).
normlab_add_test(NAME test_ch07 KIND gpu SOURCES gpu/test_ch07.cpp
  LIBRARIES normlab_kernels normlab_grading LABELS ch07)
target_include_directories(test_ch07 PRIVATE gpu)

# GPU, about 6.4 GB of device memory: rows * stride > 2^31 elements.
normlab_add_test(NAME test_ch07_large KIND gpu SOURCES gpu/test_ch07_large.cpp
  LIBRARIES normlab_ch07 LABELS ch07 large)

# GPU: a bf16 sum of squares must fail the bf16 grader on 4096-wide rows; its fp32 twin passes.
normlab_add_test(NAME test_known_wrong_ch07 KIND gpu
  SOURCES known_wrong/test_known_wrong_ch07.cpp known_wrong/half_statistics.cu
  LIBRARIES normlab_grading LABELS known_wrong ch07)
target_include_directories(test_known_wrong_ch07 PRIVATE gpu known_wrong)

# CPU: the launcher refuses what cannot work, by name, before touching the device.
normlab_add_test(NAME test_ch07_arguments KIND cpu SOURCES cpu/test_ch07_arguments.cpp
  LIBRARIES normlab_ch07 LABELS ch07)

# normlab check: bad options refused by name (exit 2) on any machine; exit 69 and one line
# without a GPU; on a GPU, PASS, its JSON and a --dump that holds what case.json says.
add_test(NAME normlab_check_options
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cpu/check_cli.sh $<TARGET_FILE:normlab>)
set_tests_properties(normlab_check_options PROPERTIES LABELS "cpu;ch07")
add_test(NAME normlab_check_without_gpu
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/expect_no_gpu.sh $<TARGET_FILE:normlab> check
                 --op add_layernorm --dtype bf16 --rows 4 --cols 64 --bias)
set_tests_properties(normlab_check_without_gpu PROPERTIES LABELS "cpu;ch07")
add_test(NAME normlab_check_on_gpu
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gpu/check_cli_gpu.py
                 $<TARGET_FILE:normlab> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(normlab_check_on_gpu PROPERTIES
  ENVIRONMENT "NORMLAB_REQUIRE_GPU=$<BOOL:${NORMLAB_REQUIRE_GPU}>")
_normlab_set_test_kind(normlab_check_on_gpu gpu "ch07")

# CPU: what the compiler made of chapter 07. Every bf16 kernel moves 16 bytes per load and per
# store; no kernel touches local memory (no spills; the row's vectors stay in registers).
normlab_add_sass_test(NAME sass_ch07_bf16_vectors TARGET normlab_ch07
  FUNCTION "norm_\\w+I13__nv_bfloat16" REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128" FORBID "LDL|STL"
  LABELS ch07)
normlab_add_sass_test(NAME sass_ch07_no_local_memory TARGET normlab_ch07 FUNCTION "."
  FORBID "LDL|STL" LABELS ch07)

# GPU: compute-sanitizer memcheck and racecheck. The chapter program on a small odd problem in
# bf16 and fp32; normlab check on misaligned, oddly strided rows (the element-by-element
# path), in place, and on rows wide enough to be streamed.
normlab_add_sanitizer_tests(PROGRAM ch07_real_tensors LABELS ch07
  ARGS --rows 37 --cols 1029 --dtype bf16 --quick)
normlab_add_sanitizer_tests(PROGRAM ch07_real_tensors NAME_SUFFIX fp32 LABELS ch07
  ARGS --rows 37 --cols 1028 --quick)
normlab_add_sanitizer_tests(PROGRAM normlab NAME_SUFFIX check_misaligned LABELS ch07
  ARGS check --op add_layernorm --dtype bf16 --weight-dtype fp32 --rows 5 --cols 1001
       --row-stride 1013 --misalign 3 --bias)
normlab_add_sanitizer_tests(PROGRAM normlab NAME_SUFFIX check_in_place LABELS ch07
  ARGS check --op add_rmsnorm --dtype fp16 --rows 7 --cols 77 --misalign 1 --in-place --gemma)
normlab_add_sanitizer_tests(PROGRAM normlab NAME_SUFFIX check_streamed LABELS ch07
  ARGS check --op layernorm --dtype bf16 --rows 2 --cols 40001 --misalign 5 --bias)

# GPU: the exercise grader (grade_ex07, grade_ex07_solution, meta_ex07_skeleton_rejected), the
# solution's 16-byte loads and stores, and the sanitizers on the solution.
normlab_add_grader(EXERCISE 07 SLUG bf16-vector-load
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex07.cpp SOURCES ex07.cu)
normlab_add_sass_test(NAME sass_ex07_solution TARGET grade_ex07_solution
  FUNCTION rmsnorm_bf16x8 REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128" FORBID "LDL|STL"
  LABELS ex07 solutions)
normlab_add_sanitizer_tests(PROGRAM grade_ex07_solution LABELS ex07 solutions ARGS [sanitize])
