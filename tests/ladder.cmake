# Chapters 01-04, the RMSNorm ladder: chapter tests, known-wrong kernels, SASS checks and
# sanitizer runs.

# GPU: each chapter's kernels against the float64 reference (cases in gpu/ladder_cases.hpp).
foreach(chapter 01 02 03 04)
  normlab_add_test(NAME test_ch${chapter} KIND gpu SOURCES gpu/test_ch${chapter}.cpp
    LIBRARIES normlab_kernels normlab_grading LABELS ch${chapter})
  target_include_directories(test_ch${chapter} PRIVATE gpu)
endforeach()

# GPU: the library's warp and block sums and Welford moments (common/include/normlab/device)
# agree with chapter 03's hand-written sums and with float64 on the host.
normlab_add_test(NAME test_device_blocks KIND gpu SOURCES gpu/test_device_blocks.cu
  LIBRARIES normlab_ch03 LABELS ch03 device)
# racecheck sees a block reduction that reuses its slots before every warp has read them.
normlab_add_sanitizer_tests(PROGRAM test_device_blocks LABELS ch03 device)

# GPU: the known-wrong kernels must each be rejected, by the case meant to catch them.
normlab_add_test(NAME test_known_wrong_ladder KIND gpu
  SOURCES known_wrong/test_known_wrong_ladder.cpp known_wrong/eps_outside_sqrt.cu
          known_wrong/eps_on_sum.cu known_wrong/tree_without_barriers.cu
          known_wrong/float4_without_tail.cu
  LIBRARIES normlab_kernels normlab_grading LABELS known_wrong ch02 ch04)
target_include_directories(test_known_wrong_ladder PRIVATE gpu known_wrong)

# CPU: what the compiler made of each chapter. No local memory anywhere (no spills, no
# register arrays indexed at run time); chapter 02 reduces without shuffles, chapter 03 with
# them; chapter 04's register-resident kernels move 16 bytes per load and store.
normlab_add_sass_test(NAME sass_ch01_no_local_memory TARGET normlab_ch01 FUNCTION "."
  FORBID "LDL|STL" LABELS ch01)
normlab_add_sass_test(NAME sass_ch02_tree_without_shuffles TARGET normlab_ch02
  FUNCTION rmsnorm_block_tree_kernel FORBID "SHFL" "LDL|STL" LABELS ch02)
normlab_add_sass_test(NAME sass_ch03_shuffles TARGET normlab_ch03
  FUNCTION rmsnorm_warp_shuffle_kernel REQUIRE "SHFL" FORBID "LDL|STL" LABELS ch03)
normlab_add_sass_test(NAME sass_ch04_float4_registers TARGET normlab_ch04
  FUNCTION "rmsnorm_registers_kernelI6float4" REQUIRE "LDG\\.E\\.128" "STG\\.E\\.128"
  FORBID "LDL|STL" LABELS ch04)
normlab_add_sass_test(NAME sass_ch04_no_local_memory TARGET normlab_ch04 FUNCTION "."
  FORBID "LDL|STL" LABELS ch04)

# GPU: compute-sanitizer memcheck and racecheck on small odd shapes. Chapter 03 runs twice,
# with 256 threads per block (cols = 1029) and with 1024 (cols = 8195). Chapter 04 runs three
# times: contiguous rows with cols % 4 != 0 take the 4-byte path, cols = 1028 the 16-byte
# register path, cols = 12300 the 16-byte two-read fallback (wider than registers hold).
foreach(program ch01_thread_per_row ch02_block_tree ch03_warp_shuffle ch04_fused_float4)
  string(SUBSTRING ${program} 0 4 chapter)
  normlab_add_sanitizer_tests(PROGRAM ${program} LABELS ${chapter} ARGS --rows 37 --cols 1029 --quick)
endforeach()
normlab_add_sanitizer_tests(PROGRAM ch03_warp_shuffle NAME_SUFFIX wide LABELS ch03
  ARGS --rows 9 --cols 8195 --quick)
normlab_add_sanitizer_tests(PROGRAM ch04_fused_float4 NAME_SUFFIX float4 LABELS ch04
  ARGS --rows 37 --cols 1028 --quick)
normlab_add_sanitizer_tests(PROGRAM ch04_fused_float4 NAME_SUFFIX wide LABELS ch04
  ARGS --rows 5 --cols 12300 --quick)
