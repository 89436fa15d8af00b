#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/gpu_all.sh without OUTDIR (or with an empty one) is a usage error: exit code 2, one
# line naming OUTDIR, and nothing written, neither beside it nor at the filesystem root (where
# an empty OUTDIR would put logs/ and results/).
#   script_gpu_all_usage.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy of the script alone: should it go on past the arguments, it fails at once for want of
# scripts/deps.sh instead of building.
mkdir -p "$tmp/repo/scripts" "$tmp/work"
cp "$source_dir/scripts/gpu_all.sh" "$tmp/repo/scripts/"
before=$(stat -c %Y /logs/env.txt /results 2>/dev/null || true)
failed=0
for arguments in none empty; do
  status=0
  if [ "$arguments" = none ]; then
    output=$(cd "$tmp/work" && bash ../repo/scripts/gpu_all.sh 2>&1) || status=$?
  else
    output=$(cd "$tmp/work" && bash ../repo/scripts/gpu_all.sh "" 2>&1) || status=$?
  fi
  echo "$arguments: exit $status: $output"
  if [ "$status" -ne 2 ]; then echo "FAILED ($arguments): exit code $status, not 2"; failed=1; fi
  if [ "$(printf '%s\n' "$output" | wc -l)" -ne 1 ] || ! grep -q "OUTDIR" <<<"$output"; then
    echo "FAILED ($arguments): not one line naming OUTDIR"
    failed=1
  fi
  written=$(cd "$tmp" && find . -mindepth 1 ! -path ./repo ! -path ./repo/scripts \
    ! -path ./repo/scripts/gpu_all.sh ! -path ./work)
  if [ -n "$written" ]; then echo "FAILED ($arguments): wrote $written"; failed=1; fi
  if [ "$(stat -c %Y /logs/env.txt /results 2>/dev/null || true)" != "$before" ]; then
    echo "FAILED ($arguments): wrote /logs/env.txt or /results"
    failed=1
  fi
done
[ "$failed" -eq 0 ] && echo "ok: usage error, exit code 2, nothing written"
exit "$failed"
