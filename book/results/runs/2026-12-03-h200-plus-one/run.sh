#!/bin/bash
# Call A of three chained calls (B and C follow within 30 s, the build kept): the gpu preset built
# on the device; the tests of what changed (the (1 + w) add only for such calls, the off-grid
# refusal of a widened row) and the ones the last call did not build; Nsight Compute on the four
# forward kernels profiled before the change. peers-1 goes to /tmp/peers for call C.
s=$(date +%s); L=$OUT/logs; mkdir -p $L /tmp/peers
exec > >(tee $L/run.txt) 2>&1
cp -r .deps/peers-1 /tmp/peers/
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H
bash scripts/deps.sh --offline .deps/dev19/debs > $L/deps.log 2>&1 || tail -5 $L/deps.log
cmake --preset gpu > $L/configure.log 2>&1 || tail -20 $L/configure.log
timeout 300 cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "build rc=$? at $(( $(date +%s) - s ))s"
grep -iE "error|spill" $L/build.log | head -5
timeout 170 ctest --preset gpu -j 10 --timeout 160 -R "test_same_function|test_dispatch_run|test_ch07$|test_ch09$|test_ch08$|test_ch08_arguments|test_known_wrong_head_views|test_capabilities|test_head_views|other_dy|test_ch10$|test_known_wrong_ch10|test_ch07_weight|ch10_huge_rows_whole_gpu" > $L/ctest.log 2>&1
echo "ctest rc=$? at $(( $(date +%s) - s ))s"; grep -E "tests passed|\*\*\*|Not Run" $L/ctest.log | tail -20
N=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)
for c in "layernorm 16384 4096 --bias" "rmsnorm 16384 4096" "layernorm 65536 768 --bias" "rmsnorm 65536 768"; do
  set -- $c; f=$L/ncu-$1-$3.txt
  timeout 60 $N --kernel-name-base function -k "regex:norm_" --launch-count 1 --section SpeedOfLight \
    --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --print-details all \
    build/gpu/tools/normlab check --op $1 --dtype bf16 --rows $2 --cols $3 $4 > $f 2>&1
  echo "ncu $c rc=$?: $(grep -E ' Duration ' $f | head -1)"
done
echo "end at $(( $(date +%s) - s ))s"
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
