#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# After `scripts/grade all` in a student copy, `ctest --preset exercises` finds the program of
# every test it runs (grade_ex12_nccl, exercise 12 on 2 GPUs, was registered but never built).
# The copy is configured (preset student) but nothing is compiled: a stand-in for cmake makes
# each program that `cmake --build DIR --target ...` is asked for a script that exits 77
# (skipped), and passes every other call to the real cmake.
#   script_grade_builds_exercise_tests.sh SOURCE_DIR
set -euo pipefail
# shellcheck source=script_make_student_copy.sh
source "$(dirname "$0")/script_make_student_copy.sh"
cmake --preset student >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }

mkdir "$tmp/bin"
cat >"$tmp/bin/cmake" <<STANDIN
#!/usr/bin/env bash
# Stand-in for cmake (script_grade_builds_exercise_tests.sh): programs that only skip.
if [ "\${1:-}" = --build ] && [ "\${3:-}" = --target ]; then
  for target in "\${@:4}"; do
    printf '#!/bin/sh\nexit 77\n' >"\$2/tests/\$target"
    chmod +x "\$2/tests/\$target"
  done
  exit 0
fi
exec $(command -v cmake) "\$@"
STANDIN
chmod +x "$tmp/bin/cmake"
status=0
PATH=$tmp/bin:$PATH scripts/grade all >"$tmp/grade.log" 2>&1 || status=$?
if [ "$status" -ne 69 ]; then
  cat "$tmp/grade.log"
  echo "FAILED: scripts/grade all exited $status, not 69 (built, skipped for want of a GPU)"
  exit 1
fi
status=0
output=$(ctest --preset exercises 2>&1) || status=$?
echo "$output" | grep -E "Could not find|tests passed|Not Run" || true
if [ "$status" -ne 0 ] || grep -q "Could not find executable" <<<"$output"; then
  echo "FAILED: ctest --preset exercises (exit $status) misses programs that scripts/grade all builds"
  exit 1
fi
echo "ok: every program of ctest --preset exercises is built by scripts/grade all"
