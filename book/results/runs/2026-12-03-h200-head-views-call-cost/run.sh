#!/bin/bash
# Next device call (one call, ~6 min): on main as carried, build the gpu preset's targets that
# the last run's failures and the unmeasured points need, run their tests, normlab::run's CPU
# cost (issue 51), and the head views against their contiguous copy (issue 52, point 3).
s=$(date +%s); L=$OUT/logs; mkdir -p $L
exec > >(tee $L/run.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/dev19/debs > $L/deps.log 2>&1 || tail -5 $L/deps.log
cmake --preset gpu > $L/configure.log 2>&1 || tail -20 $L/configure.log
timeout 280 cmake --build --preset gpu -j 16 --target normlab_call_cost normlab_capi ch10_huge_rows \
  test_ch08 test_capabilities test_head_views test_known_wrong_ch10_backward test_backward_workspace \
  test_dispatch_run test_ch10 normlab > $L/build.log 2>&1; echo "build rc=$? at $(( $(date +%s) - s ))s"
timeout 200 ctest --preset gpu -j 8 -R "test_ch08|test_capabilities|test_head_views|test_known_wrong_ch10_backward|test_backward_workspace|test_dispatch_run|test_ch10$|_ch10_huge_rows|script_grade_builds|doc_commands$|head_view|other_dy" > $L/ctest.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - s ))s"; grep -E "tests passed|\*\*\*|Not Run" $L/ctest.log | tail -20
timeout 90 build/gpu/bench/normlab_call_cost --benchmark_filter='^(run|entry|plan)/(rmsnorm|layernorm|add_rmsnorm)/|^launch/' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_counters_tabular=true > $L/call_cost.txt 2>&1
echo "call_cost rc=$?"
export NORMLAB_TORCH_BACKEND=ctypes NORMLAB_CAPI=$PWD/build/gpu/python/libnormlab_capi.so PYTHONPATH=$PWD/python
timeout 90 python3 bench/head_views.py > $L/head_views.txt 2>&1; echo "head_views rc=$?"
timeout 60 python3 bench/head_views.py --dtype fp16 --tokens 4096 > $L/head_views-fp16.txt 2>&1; echo "head_views fp16 rc=$?"
N=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)
for c in "layernorm 16384 4096 --bias" "rmsnorm 16384 4096" "layernorm 65536 768 --bias" "rmsnorm 65536 768"; do
  set -- $c; f=$L/ncu-$1-$3.txt
  timeout 60 $N --kernel-name-base function -k "regex:norm_" --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --print-details all \
    build/gpu/tools/normlab check --op $1 --dtype bf16 --rows $2 --cols $3 $4 > $f 2>&1
  echo "ncu $c rc=$?"; build/gpu/tools/normlab explain --op $1 --dtype bf16 --rows $2 --cols $3 $4 >> $f 2>&1
done
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
