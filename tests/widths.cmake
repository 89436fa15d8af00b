# Chapter 09, every width and every batch: the decision table on the CPU, the dispatcher and
# every configuration on the GPU, the sub-warp reduce, the known-wrong row-crossing reduction,
# SASS checks and sanitizer runs.

# CPU: choose() on both sides of every boundary; chapter 09 as every op's default.
normlab_add_test(NAME test_ch09_dispatch KIND cpu SOURCES cpu/test_ch09_dispatch.cpp
  LIBRARIES normlab_kernels LABELS ch09)

# GPU: the dispatcher and the sweep's configurations against the float64 reference.
normlab_add_test(NAME test_ch09 KIND gpu SOURCES gpu/test_ch09.cpp
  LIBRARIES normlab_kernels normlab_grading LABELS ch09)
target_include_directories(test_ch09 PRIVATE gpu)

# GPU: device::group_sum, every group width.
normlab_add_test(NAME test_group_reduce KIND gpu SOURCES gpu/test_group_reduce.cu
  LIBRARIES normlab_common LABELS ch09 device)

# GPU: a narrow kernel reducing over its neighbour row's lanes must fail; its twin passes.
normlab_add_test(NAME test_known_wrong_ch09 KIND gpu
  SOURCES known_wrong/test_known_wrong_ch09.cpp known_wrong/row_crossing_reduce.cu
  LIBRARIES normlab_grading LABELS known_wrong ch09)
target_include_directories(test_known_wrong_ch09 PRIVATE known_wrong)

# CPU: what the compiler made of chapter 09. No kernel touches local memory (the build already
# fails on a spill: -Xptxas=-warn-spills); the narrow kernels reduce with shuffles and no
# barrier or shared memory; every bf16 kernel loads 16 bytes at a time, and the block kernels
# and the narrow kernels for aligned rows store 16 bytes at a time too (the narrow kernels for
# any alignment, under their register caps, may store a vector as four 4-byte words).
normlab_add_sass_test(NAME sass_ch09_no_local_memory TARGET normlab_ch09 FUNCTION "."
  FORBID "LDL|STL" LABELS ch09)
normlab_add_sass_test(NAME sass_ch09_narrow_shuffles_only TARGET normlab_ch09
  FUNCTION "norm_narrow" REQUIRE "SHFL\\.BFLY" FORBID "BAR|LDS|STS" LABELS ch09)
normlab_add_sass_test(NAME sass_ch09_bf16_vectors TARGET normlab_ch09
  FUNCTION "norm_blockI13__nv_bfloat16|norm_narrowI13__nv_bfloat16\\w*Lb1EEEv"
  REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128" LABELS ch09)
normlab_add_sass_test(NAME sass_ch09_bf16_vector_loads TARGET normlab_ch09
  FUNCTION "norm_narrowI13__nv_bfloat16" REQUIRE "LDG\\.E\\.128" LABELS ch09)

# GPU: compute-sanitizer memcheck and racecheck on the chapter program, which runs the
# dispatcher and every configuration that holds the row: narrow rows whose count ends inside a
# block, in bf16 and fp32; a few odd-width rows (block4_any); rows wide enough for chapter 07.
normlab_add_sanitizer_tests(PROGRAM ch09_every_width NAME_SUFFIX narrow LABELS ch09
  ARGS --rows 37 --cols 576 --dtype bf16 --quick)
normlab_add_sanitizer_tests(PROGRAM ch09_every_width NAME_SUFFIX narrow_fp32 LABELS ch09
  ARGS --rows 35 --cols 1021 --quick)
normlab_add_sanitizer_tests(PROGRAM ch09_every_width NAME_SUFFIX few_rows LABELS ch09
  ARGS --rows 3 --cols 4101 --dtype fp16 --quick)
normlab_add_sanitizer_tests(PROGRAM ch09_every_width NAME_SUFFIX medium LABELS ch09
  ARGS --rows 67 --cols 8192 --dtype bf16 --quick)
normlab_add_sanitizer_tests(PROGRAM normlab NAME_SUFFIX ch09_misaligned LABELS ch09
  ARGS check --op add_layernorm --dtype bf16 --weight-dtype fp32 --rows 37 --cols 1001
       --row-stride 1013 --misalign 3 --bias)
normlab_add_sanitizer_tests(PROGRAM normlab NAME_SUFFIX ch09_in_place LABELS ch09
  ARGS check --op add_rmsnorm --dtype fp16 --rows 33 --cols 77 --misalign 1 --in-place --gemma)
