# SPDX-License-Identifier: Apache-2.0
# Chapter 12, a row split across GPUs, beyond what course.json registers (test_ch12 on one GPU):
# the tests across every GPU through NCCL, columns_of and the refusals without a GPU, and
# exercise 12's grader on two GPUs. Nothing here without NCCL: the chapter is then not built.
if(NOT TARGET normlab_ch12)
  return()
endif()

# Multi-GPU (2 or more; skipped below that unless the preset requires them): every op sharded
# over every GPU against float64, the same bits from run to run, the norm -> linear's schedules.
normlab_add_test(NAME test_ch12_nccl KIND multigpu SOURCES gpu/test_ch12_nccl.cpp
  LIBRARIES normlab_ch12 normlab_grading LABELS ch12)

# CPU: columns_of on both sides of every boundary, exchange_bytes, refusals before any launch.
normlab_add_test(NAME test_ch12_columns KIND cpu SOURCES cpu/test_ch12_columns.cpp
  LIBRARIES normlab_ch12 LABELS ch12)
