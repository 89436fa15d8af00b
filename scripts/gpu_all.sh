#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Everything that needs a GPU, in one go (for a GPU server without network):
#   scripts/gpu_all.sh OUTDIR [DEB_DIR] [BENCH_FILTER] [BENCH_NAME]
# Installs the dependencies from DEB_DIR (default .deps/debs, gathered by
# `scripts/deps.sh --download`) through the offline path, builds with the gpu preset (a skipped
# GPU test is a failure), runs every test, the tour and the benchmarks (BENCH_FILTER none: no
# benchmarks). BENCH_FILTER and BENCH_NAME may be comma lists of as many items, one benchmark
# run each: fp32,bf16 and bench-fp32,bench-bf16 are the book's two runs.
#   OUTDIR/logs/     env.txt build.log ctest.log BENCH_NAME.txt
#   OUTDIR/results/  run.json, tour-2048x8192-fp32.json and .txt (the tour's printed text, the
#                    book's sample of it), BENCH_NAME.json (default bench), named as book/results/
#                    wants
# Exit code 0 only when the build, every test and the tour passed.
set -uo pipefail
# OUTDIR first: without it the paths below would start at the filesystem root.
if [ -z "${1:-}" ]; then
  echo "usage: scripts/gpu_all.sh OUTDIR [DEB_DIR] [BENCH_FILTER] [BENCH_NAME]: pass OUTDIR, the folder for logs/ and results/" >&2
  exit 2
fi
out=$(realpath -m "$1")
debs=$(realpath -m "${2:-.deps/debs}")
filter=${3:-.}
bench=${4:-bench}
IFS=, read -ra filters <<<"$filter"
IFS=, read -ra names <<<"$bench"
if [ "$filter" != none ] && [ "${#filters[@]}" -ne "${#names[@]}" ]; then
  echo "gpu_all.sh: BENCH_FILTER names ${#filters[@]} benchmark runs, BENCH_NAME ${#names[@]}" >&2
  exit 2
fi
logs=$out/logs
results=$out/results
mkdir -p "$logs" "$results"
cd "$(dirname "$0")/.." || exit 1
{ nvidia-smi; nvcc --version; cmake --version; } >"$logs/env.txt" 2>&1
bash scripts/deps.sh --offline "$debs" >>"$logs/env.txt" 2>&1 || { cat "$logs/env.txt"; exit 1; }
if ! { cmake --preset gpu && cmake --build --preset gpu -j "$(nproc)"; } >"$logs/build.log" 2>&1; then
  grep -E "error|FAILED" "$logs/build.log" | head -40
  exit 1
fi
IFS=, read -r gpu driver < <(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
printf '{"gpu": "%s", "driver": "%s", "date": "%s", "command": "scripts/gpu_all.sh"}\n' \
  "$gpu" "${driver# }" "$(date -u +%Y-%m-%d)" >"$results/run.json"

status=0
ctest --preset gpu -j 8 >"$logs/ctest.log" 2>&1 || status=1
grep -E "tests passed|\*\*\*|Not Run" "$logs/ctest.log" | tail -40
bash scripts/ctest_summary.sh "$logs/ctest.log" || true  # the skipped counted apart
build/gpu/tools/normlab tour --json "$results/tour-2048x8192-fp32.json" 2>&1 |
  tee "$results/tour-2048x8192-fp32.txt" || status=1
[ "$filter" = none ] && exit $status
for i in "${!filters[@]}"; do
  json=$results/${names[i]}.json
  build/gpu/bench/normlab_bench --benchmark_filter="${filters[i]}" --benchmark_out="$json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true >"$logs/${names[i]}.txt" 2>&1 ||
    status=1
  echo "benchmarks: $(grep -c '"name"' "$json") results in $json"
done
exit $status
