#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/torch_test BUILD_DIR without PyTorch: exit code 0 and one line saying that PyTorch is
# missing and nothing ran (pytest alone would collect nothing and exit 5). PyTorch is hidden by
# a torch package on PYTHONPATH whose import fails, so this holds where PyTorch is installed.
#   script_torch_test_without_torch.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build/python" "$tmp/hide/torch"
touch "$tmp/build/python/libnormlab_capi.so"
echo 'raise ModuleNotFoundError("torch hidden by a test", name="torch")' \
  >"$tmp/hide/torch/__init__.py"
status=0
output=$(cd "$tmp" && PYTHONPATH=$tmp/hide bash "$source_dir/scripts/torch_test" build 2>&1) || status=$?
echo "exit $status: $output"
if [ "$status" -ne 0 ]; then echo "FAILED: exit code $status, not 0"; exit 1; fi
if [ "$(printf '%s\n' "$output" | wc -l)" -ne 1 ] || ! grep -q "PyTorch is not installed" <<<"$output" ||
   ! grep -q "nothing ran" <<<"$output"; then
  echo "FAILED: not one line saying that PyTorch is missing and nothing ran"
  exit 1
fi
echo "ok: exit code 0, PyTorch missing, nothing ran"
