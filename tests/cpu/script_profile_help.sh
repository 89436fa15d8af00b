#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/profile --help and -h print the usage and exit 0 (they were taken for a build folder).
# A copy of the script alone, so that nothing of the checkout is profiled or written.
#   script_profile_help.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts"
cp "$source_dir/scripts/profile" "$tmp/scripts/"
failed=0
for option in --help -h; do
  status=0
  output=$(bash "$tmp/scripts/profile" "$option" 2>&1) || status=$?
  echo "$option: exit $status"
  echo "$output"
  if [ "$status" -ne 0 ]; then echo "FAILED ($option): exit code $status, not 0"; failed=1; fi
  if ! grep -q "scripts/profile \[--only REGEX\] \[BUILD_DIR\]" <<<"$output"; then
    echo "FAILED ($option): no usage line"
    failed=1
  fi
done
if [ -n "$(ls -A "$tmp" | grep -v '^scripts$')" ]; then echo "FAILED: wrote into the copy"; failed=1; fi
[ "$failed" -eq 0 ] && echo "ok: --help and -h print the usage, exit code 0"
exit "$failed"
