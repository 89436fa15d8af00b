# Chapter 08, backward: chapter tests (every dtype pairing and option, refusals, bits identical
# over 10 runs), the known-wrong backward kernels, normlab check on the backward ops, SASS
# checks and sanitizer runs.

# GPU: both ops, both reductions, against the float64 reference; determinism over 10 runs.
normlab_add_test(NAME test_ch08 KIND gpu SOURCES gpu/test_ch08.cpp
  LIBRARIES normlab_kernels normlab_grading LABELS ch08)
target_include_directories(test_ch08 PRIVATE gpu)

# GPU: dx without the projection term, dweight summed in bf16, dweight from one block's
# partial row, a non-atomic += across blocks: each must FAIL where the chapter's kernel passes.
normlab_add_test(NAME test_known_wrong_ch08 KIND gpu
  SOURCES known_wrong/test_known_wrong_ch08.cpp known_wrong/backward_wrong.cu
  LIBRARIES normlab_kernels LABELS known_wrong ch08)
target_include_directories(test_known_wrong_ch08 PRIVATE known_wrong)

# normlab check takes the backward ops: exit 69 and one line without a GPU.
add_test(NAME normlab_check_backward_without_gpu
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/expect_no_gpu.sh $<TARGET_FILE:normlab> check
                 --op layernorm_backward --dtype bf16 --rows 4 --cols 64 --bias --dresidual)
set_tests_properties(normlab_check_backward_without_gpu PROPERTIES LABELS "cpu;ch08")

# CPU: what the compiler made of chapter 08. The aligned bf16 row kernels move 16 bytes per
# load and store; no kernel touches local memory (x, dy and the column sums stay in registers).
normlab_add_sass_test(NAME sass_ch08_bf16_vectors TARGET normlab_ch08
  FUNCTION "backward_rowsI13__nv_bfloat16\\w*Li\\dELb[01]ELb1E" REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128"
  FORBID "LDL|STL" LABELS ch08)
normlab_add_sass_test(NAME sass_ch08_no_local_memory TARGET normlab_ch08 FUNCTION "."
  FORBID "LDL|STL" LABELS ch08)

# GPU: compute-sanitizer memcheck and racecheck. The chapter program on a small ragged problem
# in bf16 and fp32; normlab check on misaligned, strided rows with dresidual, in place.
normlab_add_sanitizer_tests(PROGRAM ch08_backward LABELS ch08
  ARGS --rows 37 --cols 1029 --dtype bf16 --quick)
normlab_add_sanitizer_tests(PROGRAM ch08_backward NAME_SUFFIX fp32 LABELS ch08
  ARGS --rows 37 --cols 1028 --quick)
normlab_add_sanitizer_tests(PROGRAM normlab NAME_SUFFIX check_backward_misaligned LABELS ch08
  ARGS check --op layernorm_backward --dtype bf16 --weight-dtype fp32 --rows 5 --cols 1001
       --row-stride 1013 --misalign 3 --bias --dresidual)
normlab_add_sanitizer_tests(PROGRAM normlab NAME_SUFFIX check_backward_in_place LABELS ch08
  ARGS check --op rmsnorm_backward --dtype fp16 --rows 7 --cols 77 --misalign 1 --in-place
       --gemma --dresidual)

# GPU: the exercise grader (grade_ex08, grade_ex08_solution, meta_ex08_skeleton_rejected: the
# skeleton leaves dx unwritten and must fail), and the sanitizers on the solution.
normlab_add_grader(EXERCISE 08 SLUG rmsnorm-dx
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex08.cpp SOURCES ex08.cu)
normlab_add_sanitizer_tests(PROGRAM grade_ex08_solution LABELS ex08 solutions ARGS [sanitize])
normlab_add_sass_test(NAME sass_ex08_solution TARGET grade_ex08_solution FUNCTION rmsnorm_dx
  FORBID "LDL|STL" LABELS ex08 solutions)

# CPU: the launchers refuse what cannot work, by name, before touching the device.
normlab_add_test(NAME test_ch08_arguments KIND cpu SOURCES cpu/test_ch08_arguments.cpp
  LIBRARIES normlab_kernels LABELS ch08)
