# SPDX-License-Identifier: Apache-2.0
# Chapter 13, tuning by search, beyond what course.json registers (test_ch13, its sanitizer run):
# the configuration space on the CPU, and the chapter program without a GPU.

# GPU: test_ch13 reads the chapter's space (its library is apart from the registry).
target_link_libraries(test_ch13 PRIVATE normlab_ch13)

# CPU: every configuration kept or pruned for the launcher's reason.
normlab_add_test(NAME test_ch13_space KIND cpu SOURCES cpu/test_ch13_space.cpp
  LIBRARIES normlab_ch13 LABELS ch13)

# CPU: without a GPU the program still lists the space, then says in one line that timing needs
# a GPU and exits 69.
add_test(NAME ch13_space_without_gpu
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cpu/check_ch13_without_gpu.sh
                 $<TARGET_FILE:ch13_tuning_by_search>)
set_tests_properties(ch13_space_without_gpu PROPERTIES LABELS "cpu;ch13")
