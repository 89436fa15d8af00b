#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The preset `library` needs only the CUDA Toolkit, CMake and Ninja: with Catch2, Google
# Benchmark and Doxygen disabled and cuobjdump's directory ignored, as on a fresh clone without
# scripts/deps.sh, it configures and its cache records no search for them; the preset
# `default` under the same conditions stops, naming cuobjdump, what installs it and the preset
# `library`.
#   check_library_preset.sh CMAKE SOURCE_DIR WORK_DIR CUDA_COMPILER CUOBJDUMP
set -euo pipefail
cmake=$1 source=$2 work=$3 nvcc=$4 cuobjdump=$5

rm -rf "$work"
mkdir -p "$work"
# Every directory cuobjdump was found in or could be (the CUDA compiler is named, so that it
# need not be looked for where cuobjdump is).
hidden="$(dirname "$cuobjdump");$source/.deps/tools/nvidia/cu13/bin"
without=(-DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
         -DCMAKE_DISABLE_FIND_PACKAGE_Doxygen=ON "-DCMAKE_IGNORE_PATH=$hidden"
         "-DCMAKE_CUDA_COMPILER=$nvcc")
cd "$source"

if ! "$cmake" --preset library -B "$work/library" "${without[@]}" >"$work/library.log" 2>&1; then
  cat "$work/library.log" >&2
  echo "check_library_preset: the preset library does not configure without cuobjdump," \
    "Catch2, Google Benchmark and Doxygen (above)" >&2
  exit 1
fi
looked_up=$(grep -E '^(NORMLAB_CUOBJDUMP|Catch2_DIR|benchmark_DIR|DOXYGEN_EXECUTABLE)[:=]' \
  "$work/library/CMakeCache.txt" || true)
if [ -n "$looked_up" ]; then
  echo "check_library_preset: the preset library looked up what it does not need:" >&2
  echo "$looked_up" >&2
  exit 1
fi
echo "check_library_preset: the preset library configures without cuobjdump, Catch2," \
  "Google Benchmark and Doxygen, and looks none of them up"

if "$cmake" --preset default -B "$work/default" "${without[@]}" >"$work/default.log" 2>&1; then
  echo "check_library_preset: the preset default configured without cuobjdump and Catch2:" \
    "the conditions above hide nothing" >&2
  exit 1
fi
# CMake wraps the message; its words are compared with the lines joined.
message=$(tr -s ' \n' '  ' <"$work/default.log")
for words in "cuobjdump not found" "scripts/deps.sh installs it" "cmake --preset library"; do
  if [[ $message != *"$words"* ]]; then
    cat "$work/default.log" >&2
    echo "check_library_preset: the preset default fails (above) without saying \"$words\"" >&2
    exit 1
  fi
done
echo "check_library_preset: the preset default stops at cuobjdump and says what installs it" \
  "and that the preset library needs none of it"
