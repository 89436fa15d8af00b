#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that a normlab program, with every GPU hidden, says so in one line and exits 69:
# expect_no_gpu.sh PROGRAM [ARGS...]
set -u
output=$(CUDA_VISIBLE_DEVICES="" "$@" 2>&1)
status=$?
echo "$output"
if [ "$status" -ne 69 ]; then
  echo "FAILED: expected exit code 69 without a GPU, got $status"
  exit 1
fi
if [ "$(printf '%s\n' "$output" | wc -l)" -ne 1 ] || ! grep -q "needs a CUDA GPU" <<<"$output"; then
  echo "FAILED: expected one line saying a CUDA GPU is needed"
  exit 1
fi
echo "ok: exit code 69 and one clear line"
