#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# After `scripts/grade all` in a student copy, `ctest --preset exercises` finds the program of
# every test it runs (grade_ex12_nccl, exercise 12 on 2 GPUs, was registered but never built).
# The copy is configured (preset student) against a stand-in NCCL (a header stating its version
# and an empty library), so grade_ex12_nccl is registered on any machine, but nothing is
# compiled: a stand-in for cmake makes each program that `cmake --build DIR --target ...` is
# asked for a script that exits 77 (skipped), and passes every other call to the real cmake.
# grade reads the tests from CTestTestfile.cmake, whose test names CMake 3 writes as bracket
# arguments ([=[name]=]) and CMake 4 as quoted ones ("name"): both are checked, the file as this
# CMake wrote it and then rewritten in the other form.
#   script_grade_builds_exercise_tests.sh SOURCE_DIR
set -euo pipefail
# shellcheck source=script_make_student_copy.sh
source "$(dirname "$0")/script_make_student_copy.sh"
mkdir -p "$tmp/nccl/include" "$tmp/nccl/lib"
printf '#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 3\n' >"$tmp/nccl/include/nccl.h"
: >"$tmp/nccl/lib/libnccl.so"
cmake --preset student -DNCCL_ROOT="$tmp/nccl" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; exit 1; }

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

grade_all_then_ctest() {
  local status=0 output
  rm -f build/student/tests/grade_ex*  # the stand-in programs of the last pass
  PATH=$tmp/bin:$PATH scripts/grade all >"$tmp/grade.log" 2>&1 || status=$?
  if [ "$status" -ne 69 ]; then
    cat "$tmp/grade.log"
    echo "FAILED ($1): scripts/grade all exited $status, not 69 (built, skipped for want of a GPU)"
    exit 1
  fi
  status=0
  output=$(ctest --preset exercises 2>&1) || status=$?
  echo "$output" | grep -E "Could not find|tests passed|Not Run" || true
  if [ "$status" -ne 0 ] || grep -q "Could not find executable" <<<"$output"; then
    echo "FAILED ($1): ctest --preset exercises (exit $status) misses programs that scripts/grade all builds"
    exit 1
  fi
  grep -q "grade_ex12_nccl" <<<"$(ctest --preset exercises -N)" ||
    { echo "FAILED ($1): grade_ex12_nccl is not registered: the stand-in NCCL was not found"; exit 1; }
}

testfile=build/student/tests/CTestTestfile.cmake
grade_all_then_ctest "the test file as CMake wrote it"
python3 - "$testfile" <<'EOF_PY'
import re
import sys

# Test names in the other form: [=[name]=] becomes "name", "name" becomes [=[name]=].
path = sys.argv[1]
text = open(path).read()
call = r'^((?:add_test|set_tests_properties)\()(?:\[=\[(.+?)\]=\]|"([^"]+)")'
text = re.sub(call, lambda m: f'{m[1]}"{m[2]}"' if m[2] else f"{m[1]}[=[{m[3]}]=]", text,
              flags=re.M)
open(path, "w").write(text)
EOF_PY
grade_all_then_ctest "test names rewritten in the other form"
echo "ok: every program of ctest --preset exercises is built by scripts/grade all"
