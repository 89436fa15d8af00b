# SPDX-License-Identifier: Apache-2.0
# Head views (issue 52, point 3): x's rows in two levels, as q = qkv[:, :H, :] of a fused
# projection. The CPU side (plans, keys, refusals by name) is in test_dispatch; the PyTorch ops'
# in python/tests.

# GPU: every kernel that declares two-level rows, and normlab::run, against the float64
# reference on ragged head views with poisoned gaps.
normlab_add_test(NAME test_head_views KIND gpu SOURCES gpu/test_head_views.cpp
  LIBRARIES normlab_api normlab_grading LABELS ch07 ch08 ch09 api)

# GPU: a head view read as one stride (the groups dropped) must fail where the same kernel
# reading it right passes: chapters 07, 09 and 10's forward, chapter 08's backward.
normlab_add_test(NAME test_known_wrong_head_views KIND gpu
  SOURCES known_wrong/test_known_wrong_head_views.cpp
  LIBRARIES normlab_registry normlab_grading LABELS known_wrong ch07 ch08 ch09)
target_include_directories(test_known_wrong_head_views PRIVATE gpu)
