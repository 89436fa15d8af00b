#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/test closes with "N passed, N failed, N skipped" (ctest's "N% tests passed" counts the
# skipped as passed), and keeps the workflow's exit code. A copy of scripts/ in a temporary
# directory, with scripts/deps.sh doing nothing and a stand-in for cmake that runs ctest on a
# small project of one passing, one failing and one skipped test.
#   script_test_counts_skipped.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo" "$tmp/project" "$tmp/bin"
cp -r "$source_dir/scripts" "$tmp/repo/scripts"
echo 'exit 0' >"$tmp/repo/scripts/deps.sh"
cat >"$tmp/project/CMakeLists.txt" <<'PROJECT'
cmake_minimum_required(VERSION 3.25)
project(counts NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "exit 0")
add_test(NAME fails COMMAND sh -c "exit 1")
add_test(NAME skips COMMAND sh -c "exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
PROJECT
cmake -S "$tmp/project" -B "$tmp/project/build" >/dev/null
printf '#!/bin/sh\ncd "%s" && exec ctest\n' "$tmp/project/build" >"$tmp/bin/cmake"
chmod +x "$tmp/bin/cmake"
status=0
output=$(PATH=$tmp/bin:$PATH bash "$tmp/repo/scripts/test" 2>&1) || status=$?
echo "$output"
last=$(tail -n 1 <<<"$output")
if [ "$last" != "1 passed, 1 failed, 1 skipped" ]; then
  echo "FAILED: the last line is '$last', not '1 passed, 1 failed, 1 skipped'"
  exit 1
fi
if [ "$status" -eq 0 ]; then echo "FAILED: exit code 0 although a test failed"; exit 1; fi
echo "ok: the closing line counts the skipped test apart; exit code $status"
