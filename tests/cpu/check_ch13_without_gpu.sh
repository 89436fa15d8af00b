#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Chapter 13's program with every GPU hidden: the configuration space of bf16 RMSNorm at 576
# columns (narrow8x2 pruned, narrow16x5 kept, the rules' pick named), then one line saying a
# GPU is needed, and exit code 69. check_ch13_without_gpu.sh PROGRAM
set -u
output=$(CUDA_VISIBLE_DEVICES="" "$1" --op rmsnorm --dtype bf16 --rows 8192 --cols 576 2>&1)
status=$?
echo "$output"
failed=0
expect() {
  grep -Eq "$1" <<<"$output" || { echo "FAILED: no line matching '$1'"; failed=1; }
}
expect '^  narrow8x2 +16  pruned: narrow8x2 holds 16 chunks of a row, the row spans 72$'
expect '^  narrow16x5 +80  kept$'
expect "^kept [0-9]+ of [0-9]+; chapter 09's rules pick narrow16x5 "
expect 'needs a CUDA GPU'
if [ "$status" -ne 69 ]; then
  echo "FAILED: expected exit code 69 without a GPU, got $status"
  failed=1
fi
[ "$failed" -eq 0 ] && echo "ok: the space listed, then one line and exit code 69"
exit "$failed"
