# SPDX-License-Identifier: Apache-2.0
# Chapter 11, FlashNorm, beyond what course.json registers (test_ch11, its sanitizer runs and
# SASS checks): the exact transforms, the tolerance and the dispatch table, on the CPU.
normlab_add_test(NAME test_ch11_transforms KIND cpu SOURCES cpu/test_ch11_transforms.cpp
  LIBRARIES normlab_ch11 LABELS ch11)
# The GPU test runs the plain path through normlab::run, the public dispatcher.
target_link_libraries(test_ch11 PRIVATE normlab_api)
