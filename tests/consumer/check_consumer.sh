#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs a normlab build into a fresh prefix, builds tests/consumer against it as a project of
# its own (find_package(normlab), normlab::normlab) and runs it; then shows the consumer reads
# the installed headers: with one of them removed from the prefix it no longer builds.
#   check_consumer.sh CMAKE GENERATOR CXX_COMPILER CUDA_TOOLKIT_ROOT BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
cmake=$1 generator=$2 cxx=$3 cuda_root=$4 build=$5 source=$6 work=$7

rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/install.log"
"$cmake" -S "$source/tests/consumer" -B "$work/build" -G "$generator" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCUDAToolkit_ROOT="$cuda_root" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log"
"$cmake" --build "$work/build"
"$work/build/normlab_consumer"

rm "$work/prefix/include/normlab/ops.hpp"
if "$cmake" --build "$work/build" >"$work/without_header.log" 2>&1; then
  echo "check_consumer: the consumer still builds without the installed ops.hpp:" \
    "it does not read the installed headers" >&2
  exit 1
fi
echo "check_consumer: without the installed ops.hpp the consumer no longer builds, as it should"
