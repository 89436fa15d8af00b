# SPDX-License-Identifier: Apache-2.0
# Chapter 12, a row split across GPUs, beyond what course.json registers (test_ch12 on one GPU):
# the tests across every GPU through NCCL, columns_of and the refusals without a GPU, and
# exercise 12's grader on two GPUs. Nothing here without NCCL: the chapter is then not built.
if(NOT TARGET normlab_ch12)
  return()
endif()

# The chapter's library is apart from the registry (chapters/12-across-gpus/CMakeLists.txt).
target_link_libraries(test_ch12 PRIVATE normlab_ch12)

# Multi-GPU (2 or more; skipped below that unless the preset requires them): every op sharded
# over every GPU against float64, the same bits from run to run, the norm -> linear's schedules.
normlab_add_test(NAME test_ch12_nccl KIND multigpu SOURCES gpu/test_ch12_nccl.cpp
  LIBRARIES normlab_ch12 normlab_grading LABELS ch12)
target_include_directories(test_ch12_nccl PRIVATE gpu)  # ch12_shares.hpp, shared with test_ch12

# CPU: columns_of on both sides of every boundary, exchange_bytes, refusals before any launch.
normlab_add_test(NAME test_ch12_columns KIND cpu SOURCES cpu/test_ch12_columns.cpp
  LIBRARIES normlab_ch12 LABELS ch12)

# Multi-GPU: exercise 12 graded on 2 GPUs through NCCL (graders/ex12_nccl.cpp): each GPU's
# moments by the exercise's pass 1, all-gathered by the chapter's exchange_moments, merged by its
# pass 2 on both. Built as normlab_add_grader builds the one-GPU grader (NormlabHelpers.cmake),
# which cannot make a multi-GPU test: grade_ex12_nccl from the student's copy (label exercise),
# grade_ex12_nccl_solution, and the skeleton as committed, which must fail
# (meta_ex12_nccl_skeleton_rejected).
normlab_exercise_field(ex12_slug 12 slug)
set(ex12_variants exercise pristine)
if(TARGET grade_ex12_solution)
  list(APPEND ex12_variants solution)
endif()
foreach(variant IN LISTS ex12_variants)
  set(dir ${PROJECT_SOURCE_DIR}/exercises/ex12-${ex12_slug})
  set(target grade_ex12_nccl)
  set(test grade_ex12_nccl)
  set(labels ex12 exercise)
  if(variant STREQUAL "solution")
    set(dir ${PROJECT_SOURCE_DIR}/solutions/ex12-${ex12_slug})
    set(target grade_ex12_nccl_solution)
    set(test grade_ex12_nccl_solution)
    set(labels ex12 solutions)
  elseif(variant STREQUAL "pristine")
    _normlab_pristine_skeleton(dir ex12-${ex12_slug})
    set(target grade_ex12_nccl_pristine)
    set(test meta_ex12_nccl_skeleton_rejected)
    set(labels ex12 meta)
  endif()
  add_executable(${target} graders/ex12_nccl.cpp ${dir}/ex12.cu)
  target_include_directories(${target} PRIVATE ${dir})
  target_link_libraries(${target} PRIVATE normlab_ch12 normlab_grading normlab_catch_multigpu_main)
  normlab_target_defaults(${target})
  add_test(NAME ${test} COMMAND ${target})
  if(variant STREQUAL "pristine")
    set_tests_properties(${test} PROPERTIES WILL_FAIL TRUE)
  endif()
  _normlab_set_test_kind(${test} multigpu "${labels}")
endforeach()
