#!/bin/bash
# The gpu preset, call 2 of 2: finish the build if call 1 could not, run every test call 1 did
# not pass, then gpu_all.sh's tour and the book's two benchmark runs.
s=$(date +%s); L=$OUT/logs; R=$OUT/results; mkdir -p $L $R
exec > >(tee $L/g2.txt) 2>&1
date -u
[ -d .deps/prefix ] || bash scripts/deps.sh --offline .deps/dev18/debs > $L/deps.log 2>&1
[ -f build/gpu/build.ninja ] || cmake --preset gpu > $L/configure.log 2>&1
timeout 300 cmake --build --preset gpu -j 16 > $L/build2.log 2>&1; echo "build rc=$? at $(( $(date +%s) - s ))s"; tail -1 $L/build2.log
touch build/gpu/ctest1.log
ids=$(ctest --preset gpu -N | sed -n 's/^ *Test *#\([0-9]*\): \([^ ]*\)$/\1 \2/p' | while read n name; do
  grep -q "Test *#$n: $name \.*  *Passed" build/gpu/ctest1.log || printf ',%s' $n; done)
echo "to run: $(echo $ids | tr ',' '\n' | grep -c .)"
if [ -n "$ids" ]; then
  timeout 330 ctest --preset gpu -j 8 -I 0,0,0$ids > $L/ctest2.log 2>&1; echo "ctest rc=$? at $(( $(date +%s) - s ))s"
  grep -E "tests passed|\*\*\*|Failed|Not Run" $L/ctest2.log | tail -20
fi
cp build/gpu/ctest1.log $L/ 2>/dev/null
IFS=, read -r gpu driver < <(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
printf '{"gpu": "%s", "driver": "%s", "date": "%s", "command": "scripts/gpu_all.sh"}\n' "$gpu" "${driver# }" "$(date -u +%Y-%m-%d)" > $R/run.json
timeout 60 build/gpu/tools/normlab tour --json $R/tour-2048x8192-fp32.json > $L/tour.txt 2>&1; echo "tour rc=$?"
for d in fp32 bf16; do
  left=$(( 585 - ($(date +%s) - s) )); [ $left -lt 20 ] && break
  timeout $left build/gpu/bench/normlab_bench --benchmark_filter=$d --benchmark_out=$R/bench-$d.json \
    --benchmark_out_format=json --benchmark_counters_tabular=true > $L/bench-$d.txt 2>&1; echo "bench $d rc=$? at $(( $(date +%s) - s ))s"
done
cd $OUT && tar -cJf logs.tar.xz logs results && rm -rf logs results
