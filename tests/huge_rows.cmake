# SPDX-License-Identifier: Apache-2.0
# Chapter 10, rows too long for one block, beyond what course.json registers: the known-wrong
# DSMEM exchange, and the wide backward under chapter 08's known-wrong steps.

# GPU (sm_90): a cluster whose blocks read each other's partials before the cluster.sync() must
# fail; its twin with the sync passes.
normlab_add_test(NAME test_known_wrong_ch10 KIND gpu
  SOURCES known_wrong/test_known_wrong_ch10.cpp known_wrong/cluster_without_sync.cu
  LIBRARIES normlab_grading LABELS known_wrong ch10)
target_include_directories(test_known_wrong_ch10 PRIVATE known_wrong)

# GPU (sm_90): chapter 10's wide backward followed by one of chapter 08's wrong steps (dweight
# in a bf16 accumulator, one cluster's partial row) must fail on wide rows where it passes alone.
normlab_add_test(NAME test_known_wrong_ch10_backward KIND gpu
  SOURCES known_wrong/test_known_wrong_ch10_backward.cpp known_wrong/backward_wrong.cu
  LIBRARIES normlab_registry LABELS known_wrong ch10)
target_include_directories(test_known_wrong_ch10_backward PRIVATE known_wrong)

# CPU: chapter 10's choice of path and cluster shape on both sides of every boundary.
normlab_add_test(NAME test_ch10_choose KIND cpu SOURCES cpu/test_ch10_choose.cpp
  LIBRARIES normlab_kernels LABELS ch10)
