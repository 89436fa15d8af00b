# SPDX-License-Identifier: Apache-2.0
# Chapter 07, real tensors, beyond what course.json registers: the 64-bit test, one function
# whatever the layout, the known-wrong bf16 statistics and normlab check.

# GPU, about 6.4 GB of device memory: rows * stride > 2^31 elements.
normlab_add_test(NAME test_ch07_large KIND gpu SOURCES gpu/test_ch07_large.cpp
  LIBRARIES normlab_kernels LABELS ch07 large)

# GPU: one function whatever the layout (issue 52). Every kernel the dispatcher may pick for a
# forward op (chapters 07, 09 and 10, and normlab::run) on the same rows contiguous, with a row
# stride, misaligned, in place: h bit for bit everywhere, y bit for bit where one kernel cuts two
# layouts alike, else within the statistics' reduction order; and the comparisons shown to
# reject an unrounded h. The same with rows 2^31 + 64 elements apart (about 8 GiB of device
# memory; skipped with a message where it cannot be had): test_same_function_64bit.
normlab_add_test(NAME test_same_function KIND gpu SOURCES gpu/test_same_function.cpp
  LIBRARIES normlab_api LABELS ch07 ch09 ch10 api ARGS "~[large]")
add_test(NAME test_same_function_64bit COMMAND test_same_function "[large]")
_normlab_set_test_kind(test_same_function_64bit gpu "ch07;ch09;ch10;api;large")

# GPU: a bf16 sum of squares must fail the bf16 grader on 4096-wide rows; its fp32 twin passes.
normlab_add_test(NAME test_known_wrong_ch07 KIND gpu
  SOURCES known_wrong/test_known_wrong_ch07.cpp known_wrong/half_statistics.cu
  LIBRARIES normlab_grading LABELS known_wrong ch07)
target_include_directories(test_known_wrong_ch07 PRIVATE gpu known_wrong)

# CPU: the launcher refuses what cannot work, by name, before touching the device.
normlab_add_test(NAME test_ch07_arguments KIND cpu SOURCES cpu/test_ch07_arguments.cpp
  LIBRARIES normlab_kernels LABELS ch07)

# normlab check: bad options refused by name (exit 2) on any machine; exit 69 and one line
# without a GPU; on a GPU, PASS, its JSON and a --dump that holds what case.json says.
add_test(NAME normlab_check_options
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cpu/check_cli.sh $<TARGET_FILE:normlab>)
set_tests_properties(normlab_check_options PROPERTIES LABELS "cpu;ch07")
add_test(NAME normlab_check_without_gpu
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/expect_no_gpu.sh $<TARGET_FILE:normlab> check
                 --op add_layernorm --dtype bf16 --rows 4 --cols 64 --bias)
set_tests_properties(normlab_check_without_gpu PROPERTIES LABELS "cpu;ch07")
add_test(NAME normlab_check_on_gpu
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gpu/check_cli_gpu.py
                 $<TARGET_FILE:normlab> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(normlab_check_on_gpu PROPERTIES
  ENVIRONMENT "NORMLAB_REQUIRE_GPU=$<BOOL:${NORMLAB_REQUIRE_GPU}>")
_normlab_set_test_kind(normlab_check_on_gpu gpu "ch07")
