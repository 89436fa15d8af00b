# SPDX-License-Identifier: Apache-2.0
# Chapters 01-04, the RMSNorm ladder, beyond what course.json registers (chapter tests,
# sanitizer runs, SASS checks).

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
  LIBRARIES normlab_registry normlab_grading LABELS known_wrong ch02 ch04)
target_include_directories(test_known_wrong_ladder PRIVATE gpu known_wrong)
