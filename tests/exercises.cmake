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
