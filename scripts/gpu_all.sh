#!/usr/bin/env bash
# Everything that needs a GPU, in one go (for a GPU server without network):
#   scripts/gpu_all.sh LOGDIR [DEB_DIR] [BENCH_FILTER]
# Installs the dependencies from DEB_DIR (default .deps/debs, gathered by
# `scripts/deps.sh --download`) through the offline path, builds with the gpu preset (a skipped
# GPU test is a failure), runs every test, the tour and the benchmarks. Logs go into LOGDIR:
# env.txt build.log ctest.log tour.txt tour.json bench.json.
set -uo pipefail
logs=$(realpath -m "$1")
debs=$(realpath -m "${2:-.deps/debs}")
filter=${3:-.}
mkdir -p "$logs"
cd "$(dirname "$0")/.."
{ nvidia-smi; nvcc --version; cmake --version; } >"$logs/env.txt" 2>&1
bash scripts/deps.sh --offline "$debs" >>"$logs/env.txt" 2>&1 || { cat "$logs/env.txt"; exit 1; }
if ! { cmake --preset gpu && cmake --build --preset gpu -j "$(nproc)"; } >"$logs/build.log" 2>&1; then
  tail -60 "$logs/build.log"
  exit 1
fi
status=0
ctest --preset gpu -j 8 >"$logs/ctest.log" 2>&1 || status=1
grep -E "tests passed|Failed|Skipped|\*\*\*" "$logs/ctest.log" | tail -40
build/gpu/tools/normlab tour --json "$logs/tour.json" 2>&1 | tee "$logs/tour.txt" || status=1
build/gpu/bench/normlab_bench --benchmark_filter="$filter" --benchmark_out="$logs/bench.json" \
  --benchmark_out_format=json --benchmark_counters_tabular=true >"$logs/bench.txt" 2>&1 || status=1
tail -5 "$logs/bench.txt"
exit $status
