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

# GPU: ex09's grader catches a reduction that crosses rows. The solution with its one
# device::group_sum<kLanes> made a device::warp_sum (each row summed with the other rows of its
# warp) is graded on the grader's cases (graders/ex09_cases.hpp): the cases of several rows in
# groups narrower than a warp must fail, all others pass (graders/ex09_row_crossing.cpp).
if(TARGET grade_ex09_solution)
  set(solution ${PROJECT_SOURCE_DIR}/solutions/ex09-group-per-row)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${solution}/ex09.cu)
  file(READ ${solution}/ex09.cu source)
  string(REPLACE "group_sum<kLanes>(" "device::warp_sum(" planted "${source}")
  if(planted STREQUAL source)
    message(FATAL_ERROR "${solution}/ex09.cu has no group_sum<kLanes>( to plant the row-crossing "
                        "reduction into; update tests/exercises.cmake")
  endif()
  set(planted_dir ${CMAKE_CURRENT_BINARY_DIR}/ex09_row_crossing)
  file(WRITE ${planted_dir}/ex09.cu.new "${planted}")
  configure_file(${planted_dir}/ex09.cu.new ${planted_dir}/ex09.cu COPYONLY)  # rebuilt on change only
  normlab_add_test(NAME test_ex09_row_crossing KIND gpu
    SOURCES graders/ex09_row_crossing.cpp ${planted_dir}/ex09.cu
    LIBRARIES normlab_grading LABELS ex09 known_wrong meta)
  target_include_directories(test_ex09_row_crossing PRIVATE ${solution})
endif()

# GPU: ex10's grader catches the bugs of a DSMEM exchange. The solution with one bug planted into
# its cluster_sum is graded on the grader's cases (graders/ex10_cases.hpp), one test program a
# bug, each running the test case of graders/ex10_planted.cpp tagged with its bug:
#   missing_sync  the cluster.sync() between publishing and reading removed (a race; the test
#                 says why it fails all the same)
#   rank_0_only   only rank 0's slot read: rows within one block's slice pass, wider ones fail
#   own_twice     the block's own partial added twice: every case fails
if(TARGET grade_ex10_solution)
  set(solution ${PROJECT_SOURCE_DIR}/solutions/ex10-cluster-exchange)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${solution}/ex10.cu)
  file(READ ${solution}/ex10.cu source)
  set(missing_sync_from "  cluster.sync();  // every block's partial is published\n")
  set(missing_sync_to "")
  set(rank_0_only_from "rank < kClusterBlocks;")
  set(rank_0_only_to "rank < 1;")
  set(own_twice_from "float sum = 0.0f;")
  set(own_twice_to "float sum = block_partial;")
  foreach(bug missing_sync rank_0_only own_twice)
    string(REPLACE "${${bug}_from}" "${${bug}_to}" planted "${source}")
    if(planted STREQUAL source)
      message(FATAL_ERROR "${solution}/ex10.cu has no '${${bug}_from}' to plant the bug ${bug} "
                          "into; update tests/exercises.cmake")
    endif()
    set(planted_dir ${CMAKE_CURRENT_BINARY_DIR}/ex10_${bug})
    file(WRITE ${planted_dir}/ex10.cu.new "${planted}")
    configure_file(${planted_dir}/ex10.cu.new ${planted_dir}/ex10.cu COPYONLY)  # on change only
    normlab_add_test(NAME test_ex10_planted_${bug} KIND gpu
      SOURCES graders/ex10_planted.cpp ${planted_dir}/ex10.cu
      LIBRARIES normlab_grading LABELS ex10 known_wrong meta ARGS "[${bug}]")
    target_include_directories(test_ex10_planted_${bug} PRIVATE ${solution})
  endforeach()
endif()
