#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a program under compute-sanitizer: sanitize.sh memcheck|racecheck PROGRAM [ARGS...]
# Without a GPU or without compute-sanitizer it reports "skipped" (exit 77), unless
# NORMLAB_REQUIRE_GPU=1, when that is a failure.
set -u
tool=$1
shift
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
missing=""
[ -x "$sanitizer" ] || missing="compute-sanitizer is not installed"
if [ -z "$missing" ] && ! nvidia-smi -L >/dev/null 2>&1; then missing="no CUDA GPU is visible"; fi
if [ -n "$missing" ]; then
  if [ "${NORMLAB_REQUIRE_GPU:-0}" = "1" ]; then
    echo "FAILED: $missing, and this build requires GPU tests to run"
    exit 1
  fi
  echo "SKIPPED: $missing"
  exit 77
fi
# A program that uses NCCL sets NORMLAB_SANITIZER_API_ERRORS=no (NCCL option of
# normlab_add_sanitizer_tests): NCCL's initialisation asks cudaFuncGetAttributes of kernels
# built for other GPUs and handles the errors itself, which the sanitizer would report as the
# program's. Every CUDA call of normlab's own is checked (NORMLAB_CHECK) either way.
exec "$sanitizer" --tool "$tool" --error-exitcode 1 \
  --report-api-errors "${NORMLAB_SANITIZER_API_ERRORS:-explicit}" "$@"
