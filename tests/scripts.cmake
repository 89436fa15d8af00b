# SPDX-License-Identifier: Apache-2.0
# CPU: the scripts of scripts/ on their first-hour paths (issue 54), each run in a temporary
# directory or copy so that nothing of the checkout or the build is touched.
function(_normlab_add_script_test name)
  add_test(NAME ${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cpu/${name}.sh ${PROJECT_SOURCE_DIR} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "cpu;scripts" TIMEOUT 120)
endfunction()

# gpu_all.sh without OUTDIR: a usage error before anything is written.
_normlab_add_script_test(script_gpu_all_usage)
# torch_test without PyTorch: one line, nothing ran, exit 0 (not pytest's 5).
_normlab_add_script_test(script_torch_test_without_torch)
# profile --help and -h: the usage, exit 0.
_normlab_add_script_test(script_profile_help)
# book_results --help, and --dry-run's plan: the four steps in order, nothing run or written; a
# bad --only value a usage error naming it.
_normlab_add_script_test(script_book_results_dry_run)
# tour without a GPU: one line and exit code 69 within seconds, nothing built.
_normlab_add_script_test(script_tour_without_gpu)
# student-copy: the exercises' READMEs name no folder the copy leaves out (solutions/).
_normlab_add_script_test(script_student_copy_readmes)
# grade all builds every program ctest --preset exercises runs (grade_ex12_nccl too).
_normlab_add_script_test(script_grade_builds_exercise_tests)
# test closes with N passed, N failed, N skipped (ctest_summary.sh), its exit code kept.
_normlab_add_script_test(script_test_counts_skipped)
# compare_peers --sweep bf16 --dry-run: the sweep's grid, without PyTorch or a GPU.
add_test(NAME compare_peers_sweep_dry_run COMMAND ${Python3_EXECUTABLE}
         ${PROJECT_SOURCE_DIR}/bench/compare_peers.py --sweep bf16 --dry-run)
set_tests_properties(compare_peers_sweep_dry_run PROPERTIES LABELS "cpu;scripts" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "sweep bf16: 299 rows")
