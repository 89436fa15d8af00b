# Chapters 05-06, LayerNorm with Welford and residual fusion: chapter tests (the known-wrong
# sum-of-squares variance among them), SASS checks, sanitizer runs, and the ex05/ex06 graders.

# GPU: each chapter's kernels against the float64 reference. test_ch05 also holds the known-wrong
# pair: E[x^2] - E[x]^2 must fail on rows shifted to mean 1e3 and 1e4 where Welford passes.
foreach(chapter 05 06)
  normlab_add_test(NAME test_ch${chapter} KIND gpu SOURCES gpu/test_ch${chapter}.cpp
    LIBRARIES normlab_kernels normlab_grading LABELS ch${chapter})
endforeach()
set_property(TEST test_ch05 APPEND PROPERTY LABELS known_wrong)

# CPU: what the compiler made of each chapter. The 16-byte variants load and store 16 bytes at
# a time and reduce with shuffles; no kernel touches local memory (no spills, no register array
# indexed at run time: the row slices must stay in registers).
normlab_add_sass_test(NAME sass_ch05_float4_shuffles TARGET normlab_ch05
  FUNCTION "layernorm_\\w+_kernelI.*LayoutI6float4"
  REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128" "SHFL" FORBID "LDL|STL" LABELS ch05)
normlab_add_sass_test(NAME sass_ch05_no_local_memory TARGET normlab_ch05 FUNCTION "."
  FORBID "LDL|STL" LABELS ch05)
normlab_add_sass_test(NAME sass_ch06_float4_shuffles TARGET normlab_ch06
  FUNCTION "norm_kernelI.*LayoutI6float4"
  REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128" "SHFL" FORBID "LDL|STL" LABELS ch06)
normlab_add_sass_test(NAME sass_ch06_add_float4 TARGET normlab_ch06
  FUNCTION "add_kernelI.*LayoutI6float4"
  REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128" FORBID "LDL|STL" LABELS ch06)
normlab_add_sass_test(NAME sass_ch06_no_local_memory TARGET normlab_ch06 FUNCTION "."
  FORBID "LDL|STL" LABELS ch06)

# GPU: compute-sanitizer memcheck and racecheck on small odd shapes: cols = 1029 takes the
# 4-byte path (rows not 16-byte aligned), cols = 1028 the 16-byte one.
normlab_add_sanitizer_tests(PROGRAM ch05_layernorm_welford LABELS ch05
  ARGS --rows 37 --cols 1029 --quick)
normlab_add_sanitizer_tests(PROGRAM ch05_layernorm_welford NAME_SUFFIX float4 LABELS ch05
  ARGS --rows 37 --cols 1028 --quick)
normlab_add_sanitizer_tests(PROGRAM ch06_residual_fusion LABELS ch06
  ARGS --rows 37 --cols 1029 --quick)
normlab_add_sanitizer_tests(PROGRAM ch06_residual_fusion NAME_SUFFIX float4 LABELS ch06
  ARGS --rows 37 --cols 1028 --quick)

# GPU: the exercise graders (grade_exNN, grade_exNN_solution, meta_exNN_skeleton_rejected).
normlab_add_grader(EXERCISE 05 SLUG welford-merge
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex05.cpp SOURCES ex05.cu)
normlab_add_grader(EXERCISE 06 SLUG fused-add-rmsnorm
  GRADER ${CMAKE_CURRENT_SOURCE_DIR}/graders/ex06.cpp SOURCES ex06.cu)
