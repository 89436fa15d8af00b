# SPDX-License-Identifier: Apache-2.0
# The public library (api/): the dispatcher's table on the CPU, run() on the GPU, and a project
# of its own built against the installed package.

# CPU: every rule at its boundary, the fallback, malformed calls refused by name, a Case planned
# as the NormCall the Workspace makes of it.
normlab_add_test(NAME test_dispatch KIND cpu SOURCES cpu/test_dispatch.cpp
  LIBRARIES normlab_api LABELS api)

# CPU: the tuned tables (read, written, refused by line, found by the GPU's name) and the tuned
# chooser (the nearest grid point, a refusing kernel passed over, the rules without a table).
normlab_add_test(NAME test_tuned KIND cpu SOURCES cpu/test_tuned.cpp
  LIBRARIES normlab_api LABELS api)

# CPU (and, where a GPU is visible, run() too): cmake --install into a fresh prefix, then
# tests/consumer built against it with find_package(normlab) and run.
add_test(NAME consumer_of_installed_package
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consumer/check_consumer.sh ${CMAKE_COMMAND}
                 ${CMAKE_GENERATOR} ${CMAKE_CXX_COMPILER} ${CUDAToolkit_LIBRARY_ROOT}
                 ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/consumer_of_installed_package)
set_tests_properties(consumer_of_installed_package PROPERTIES LABELS "cpu;api")

# CPU: normlab explain at every boundary of the table, sm_90 assumed without a GPU, bad options.
add_test(NAME normlab_explain
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cpu/explain_cli.sh $<TARGET_FILE:normlab>)
set_tests_properties(normlab_explain PROPERTIES LABELS "cpu;api")

# GPU: run() through every rule against the float64 reference; a refused call launches nothing.
normlab_add_test(NAME test_dispatch_run KIND gpu SOURCES gpu/test_dispatch_run.cpp
  LIBRARIES normlab_api LABELS api)
