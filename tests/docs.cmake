# SPDX-License-Identifier: Apache-2.0
# CPU (issue 54): every shell command that README.md, exercises/README.md and CONTRIBUTING.md
# show is in tests/cpu/doc_commands.txt, which says how each is tested: run in a fresh clone
# (no GPU needed, quick) with its exit code, or its scripts, presets, targets, options and paths
# checked. A page whose commands change without that file fails here. The self-test provokes
# each kind of failure on pages and a manifest of its own.
add_test(NAME doc_commands
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cpu/doc_commands.py
                 --root ${PROJECT_SOURCE_DIR})
add_test(NAME doc_commands_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cpu/doc_commands.py
                 --root ${PROJECT_SOURCE_DIR} --self-test)
set_tests_properties(doc_commands doc_commands_self_test PROPERTIES LABELS "cpu;docs" TIMEOUT 300)
