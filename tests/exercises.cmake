# SPDX-License-Identifier: Apache-2.0
# Exercises, beyond what course.json registers (graders, meta tests, speed tests, the solutions'
# SASS checks and sanitizer runs).
#
# test_exercises checks every exercises/exNN-slug against solutions/exNN-slug: TODO(exNN)
# regions well formed, a README, the same files, identical outside the regions; and that
# exercises/README.md lists every exercise. A student copy has no solutions/ to check against.
if(EXISTS ${PROJECT_SOURCE_DIR}/solutions)
  normlab_add_test(NAME test_exercises KIND cpu SOURCES cpu/test_exercises.cpp LABELS exercises)
  target_compile_definitions(test_exercises PRIVATE NORMLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

# A known-wrong copy of an exercise's solution, graded by GRADER as the test NAME (KIND gpu, the
# default, or cpu; LIBRARIES beyond normlab_grading). SOURCE is the solution's file; PAIRS names
# variables two by two, FROM then TO: each FROM's text, which must occur, is replaced by TO's, in
# turn. The planted copy is rewritten only when it changes.
function(_normlab_add_planted_test)
  cmake_parse_arguments(P "" "NAME;SOURCE;GRADER;KIND" "PAIRS;LABELS;ARGS;LIBRARIES" ${ARGN})
  if(NOT P_KIND)
    set(P_KIND gpu)
  endif()
  get_filename_component(solution ${P_SOURCE} DIRECTORY)
  get_filename_component(file ${P_SOURCE} NAME)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${P_SOURCE})
  file(READ ${P_SOURCE} planted)
  list(LENGTH P_PAIRS count)
  math(EXPR last "${count} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR next "${i} + 1")
    list(GET P_PAIRS ${i} from)
    list(GET P_PAIRS ${next} to)
    string(REPLACE "${${from}}" "${${to}}" replaced "${planted}")
    if(replaced STREQUAL planted)
      message(FATAL_ERROR "${P_SOURCE} has no '${${from}}' to plant ${P_NAME}'s bug into; "
                          "update tests/exercises.cmake")
    endif()
    set(planted "${replaced}")
  endforeach()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/planted/${P_NAME})
  file(WRITE ${dir}/${file}.new "${planted}")
  configure_file(${dir}/${file}.new ${dir}/${file} COPYONLY)  # rebuilt on change only
  normlab_add_test(NAME ${P_NAME} KIND ${P_KIND} SOURCES ${P_GRADER} ${dir}/${file}
    LIBRARIES normlab_grading ${P_LIBRARIES} LABELS ${P_LABELS} ARGS ${P_ARGS})
  target_include_directories(${P_NAME} PRIVATE ${solution})
endfunction()

# GPU: ex09's grader catches a reduction that crosses rows. The solution with its one
# device::group_sum<kLanes> made a device::warp_sum (each row summed with the other rows of its
# warp) is graded on the grader's cases (graders/ex09_cases.hpp): the cases of several rows in
# groups narrower than a warp must fail, all others pass (graders/ex09_row_crossing.cpp).
if(TARGET grade_ex09_solution)
  set(row_crossing_from "group_sum<kLanes>(")
  set(row_crossing_to "device::warp_sum(")
  _normlab_add_planted_test(NAME test_ex09_row_crossing
    SOURCE ${PROJECT_SOURCE_DIR}/solutions/ex09-group-per-row/ex09.cu
    GRADER graders/ex09_row_crossing.cpp PAIRS row_crossing_from row_crossing_to
    LABELS ex09 known_wrong meta)
endif()

# GPU: ex10's grader catches the bugs of a DSMEM exchange. The solution with one bug planted into
# its cluster_sum is graded on the grader's cases (graders/ex10_cases.hpp), one test program a
# bug, each running the test case of graders/ex10_planted.cpp tagged with its bug:
#   missing_sync  the cluster.sync() between publishing and reading removed (a race; the test
#                 says why it fails all the same)
#   rank_0_only   only rank 0's slot read: rows within one block's slice pass, wider ones fail
#   own_twice     the block's own partial added twice: every case fails
if(TARGET grade_ex10_solution)
  set(missing_sync_from "  cluster.sync();  // every block's partial is published\n")
  set(missing_sync_to "")
  set(rank_0_only_from "rank < kClusterBlocks;")
  set(rank_0_only_to "rank < 1;")
  set(own_twice_from "float sum = 0.0f;")
  set(own_twice_to "float sum = block_partial;")
  foreach(bug missing_sync rank_0_only own_twice)
    _normlab_add_planted_test(NAME test_ex10_planted_${bug}
      SOURCE ${PROJECT_SOURCE_DIR}/solutions/ex10-cluster-exchange/ex10.cu
      GRADER graders/ex10_planted.cpp PAIRS ${bug}_from ${bug}_to
      LABELS ex10 known_wrong meta ARGS "[${bug}]")
  endforeach()
endif()

# GPU: ex12's grader catches the bugs of partial statistics and their merge. The solution with
# one bug planted is graded on the grader's cases (graders/ex12_cases.hpp), one test program a
# bug, each running the test case of graders/ex12_planted.cpp tagged with its bug, which also
# checks that the cases the bug leaves right still pass:
#   equal_weights     the ranks' means weighed alike, not by their counts: even splits pass,
#                     ragged splits of drifting rows fail
#   no_delta_squared  M2 merged without the spread between the ranks' means: one rank passes,
#                     several on drifting rows fail
#   sum_of_squares    a slice's M2 from E[x^2] - E[x]^2 in fp32 (two replacements: the push and
#                     the block's merge): drifting rows pass, shifted ones fail
if(TARGET grade_ex12_solution)
  set(equal_weights_from "const float part_share = part.count / count;")
  set(equal_weights_to "const float part_share = 1.0f / static_cast<float>(rank + 1);")
  set(no_delta_squared_from "m.m2 + part.m2 + delta * delta * m.count * part_share}")
  set(no_delta_squared_to "m.m2 + part.m2}")
  set(sum_of_squares_from "m = device::welford_push(m, row[c]);")
  set(sum_of_squares_to "m = {m.count + 1.0f, m.mean + row[c], m.m2 + row[c] * row[c]};")
  set(sum_of_squares_from_2
      "return device::block_reduce_once<kThreads>(m, device::welford_merge);")
  set(sum_of_squares_to_2 "m = device::block_reduce_once<kThreads>(m, [](Moments a, Moments b) {
    return Moments{a.count + b.count, a.mean + b.mean, a.m2 + b.m2};
  });
  return {m.count, m.mean / m.count, m.m2 - m.mean * m.mean / m.count};")
  set(equal_weights_pairs equal_weights_from equal_weights_to)
  set(no_delta_squared_pairs no_delta_squared_from no_delta_squared_to)
  set(sum_of_squares_pairs sum_of_squares_from sum_of_squares_to sum_of_squares_from_2
      sum_of_squares_to_2)
  foreach(bug equal_weights no_delta_squared sum_of_squares)
    _normlab_add_planted_test(NAME test_ex12_planted_${bug}
      SOURCE ${PROJECT_SOURCE_DIR}/solutions/ex12-slice-moments/ex12.cu
      GRADER graders/ex12_planted.cpp PAIRS ${${bug}_pairs}
      LABELS ex12 known_wrong meta ARGS "[${bug}]")
  endforeach()
endif()

# CPU: ex13's grader (the pruning rule, host code) reads chapter 09's table and its launcher's rule
# (kernels/configs.hpp). It catches the plausible wrong rules: the solution with one planted is
# graded in full and must fail (WILL_FAIL), one test program a bug:
#   floor_chunks       a partly filled last chunk not counted
#   no_lead            a row's lead (its start off the grid) not counted
#   group_as_block     a row of a configuration with lanes given the block's threads, not its group's
#   start_only         a row that starts on the grid taken as aligned however it ends
#   width_first        too wide reported before off the grid
#   exact_fit_refused  a row that fills the configuration exactly refused
#   wide_refused       chapter 07's launcher (0 chunks: any row) refused
#   layernorm_ignored  a LayerNorm row on a configuration compiled for RMSNorm only
foreach(variant grade_ex13 grade_ex13_pristine grade_ex13_solution)
  if(TARGET ${variant})
    target_link_libraries(${variant} PRIVATE normlab_kernels)
  endif()
endforeach()
if(TARGET grade_ex13_solution)
  set(floor_chunks_from "(row.lead + row.cols + width - 1) / width")
  set(floor_chunks_to "(row.lead + row.cols) / width")
  set(no_lead_from "(row.lead + row.cols + width - 1)")
  set(no_lead_to "(row.cols + width - 1)")
  set(group_as_block_from "config.lanes > 0 ? config.lanes : config.max_threads")
  set(group_as_block_to "config.max_threads")
  set(start_only_from "row.lead == 0 && row.cols * row.element_bytes % kChunkBytes == 0")
  set(start_only_to "row.lead == 0")
  set(width_first_from "  if (config.aligned && !whole_chunks) return Fit::off_grid;\n")
  set(width_first_to "")
  set(width_first_from_2 "  return Fit::holds;\n  // TODO(ex13) end")
  set(width_first_to_2
      "  if (config.aligned && !whole_chunks) return Fit::off_grid;\n  return Fit::holds;\n  // TODO(ex13) end")
  set(exact_fit_refused_from "chunks_spanned(row) > kept")
  set(exact_fit_refused_to "chunks_spanned(row) >= kept")
  set(wide_refused_from "kept != 0 && ")
  set(wide_refused_to "")
  set(layernorm_ignored_from "  if (row.layernorm && !config.layernorm) return Fit::rmsnorm_only;\n")
  set(layernorm_ignored_to "")
  foreach(bug floor_chunks no_lead group_as_block start_only exact_fit_refused wide_refused
              layernorm_ignored)
    set(${bug}_pairs ${bug}_from ${bug}_to)
  endforeach()
  set(width_first_pairs width_first_from width_first_to width_first_from_2 width_first_to_2)
  foreach(bug floor_chunks no_lead group_as_block start_only width_first exact_fit_refused
              wide_refused layernorm_ignored)
    _normlab_add_planted_test(NAME test_ex13_planted_${bug} KIND cpu
      SOURCE ${PROJECT_SOURCE_DIR}/solutions/ex13-config-holds-row/ex13.cpp
      GRADER graders/ex13.cpp PAIRS ${${bug}_pairs} LIBRARIES normlab_kernels
      LABELS ex13 known_wrong meta)
    set_tests_properties(test_ex13_planted_${bug} PROPERTIES WILL_FAIL TRUE)
  endforeach()
endif()
