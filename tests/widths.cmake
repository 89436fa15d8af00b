# SPDX-License-Identifier: Apache-2.0
# Chapter 09, every width and every batch, beyond what course.json registers (test_ch09, its
# sanitizer runs and SASS checks): the decision table on the CPU, the sub-warp reduce, the
# known-wrong row-crossing reduction.

# CPU: choose() on both sides of every boundary.
normlab_add_test(NAME test_ch09_dispatch KIND cpu SOURCES cpu/test_ch09_dispatch.cpp
  LIBRARIES normlab_kernels LABELS ch09)

# GPU: device::group_sum, every group width.
normlab_add_test(NAME test_group_reduce KIND gpu SOURCES gpu/test_group_reduce.cu
  LIBRARIES normlab_common LABELS ch09 device)

# GPU: a narrow kernel reducing over its neighbour row's lanes must fail; its twin passes.
normlab_add_test(NAME test_known_wrong_ch09 KIND gpu
  SOURCES known_wrong/test_known_wrong_ch09.cpp known_wrong/row_crossing_reduce.cu
  LIBRARIES normlab_grading LABELS known_wrong ch09)
target_include_directories(test_known_wrong_ch09 PRIVATE known_wrong)
