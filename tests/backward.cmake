# SPDX-License-Identifier: Apache-2.0
# Chapter 08, backward, beyond what course.json registers (test_ch08, its sanitizer runs and
# SASS checks, the ex08 grader): the known-wrong backward kernels, normlab check on the backward
# ops without a GPU, the launchers' argument checks.

# GPU: dx without the projection term, dweight summed in bf16, dweight from one block's
# partial row, a non-atomic += across blocks: each must FAIL where the chapter's kernel passes.
normlab_add_test(NAME test_known_wrong_ch08 KIND gpu
  SOURCES known_wrong/test_known_wrong_ch08.cpp known_wrong/backward_wrong.cu
  LIBRARIES normlab_registry LABELS known_wrong ch08)
target_include_directories(test_known_wrong_ch08 PRIVATE known_wrong)

# normlab check takes the backward ops: exit 69 and one line without a GPU.
add_test(NAME normlab_check_backward_without_gpu
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/expect_no_gpu.sh $<TARGET_FILE:normlab> check
                 --op layernorm_backward --dtype bf16 --rows 4 --cols 64 --bias --dresidual)
set_tests_properties(normlab_check_backward_without_gpu PROPERTIES LABELS "cpu;ch08")

# CPU: the launchers refuse what cannot work, by name, before touching the device.
normlab_add_test(NAME test_ch08_arguments KIND cpu SOURCES cpu/test_ch08_arguments.cpp
  LIBRARIES normlab_registry LABELS ch08)
