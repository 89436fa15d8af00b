#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/tour without a GPU: one line, exit code 69, within seconds and with nothing built
# (it compiled for minutes first). Run in a clone of the repository with this checkout's
# scripts/tour, with every GPU hidden (CUDA_VISIBLE_DEVICES empty), and, where this machine has
# no GPU, as it is.
#   script_tour_without_gpu.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q "$source_dir" "$tmp/clone"
cp "$source_dir/scripts/tour" "$tmp/clone/scripts/tour"

# $1 = hidden or as-is. A tour that builds is stopped after 20 seconds.
run_tour() {
  local start=$SECONDS status=0
  if [ "$1" = hidden ]; then
    timeout 20 bash "$source_dir/scripts/expect_no_gpu.sh" bash "$tmp/clone/scripts/tour" || status=$?
  else
    local output
    output=$(env -u CUDA_VISIBLE_DEVICES timeout 20 bash "$tmp/clone/scripts/tour" 2>&1) || status=$?
    echo "$output"
    if [ "$status" -eq 69 ] && [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]; then status=0; fi
  fi
  echo "$1: exit $status after $((SECONDS - start)) s"
  if [ "$status" -ne 0 ]; then echo "FAILED ($1): not one line and exit code 69"; return 1; fi
  if ((SECONDS - start > 10)); then echo "FAILED ($1): took over 10 s"; return 1; fi
  if [ -e "$tmp/clone/build" ]; then echo "FAILED ($1): built $tmp/clone/build"; return 1; fi
}
failed=0
run_tour hidden || failed=1
gpus=$(nvidia-smi -L 2>/dev/null || true)
if grep -q '^GPU ' <<<"$gpus"; then
  echo "as-is: not run, this machine has a GPU"
else
  run_tour as-is || failed=1
fi
[ "$failed" -eq 0 ] && echo "ok: no GPU, one line, exit code 69, nothing built"
exit "$failed"
