#!/bin/bash
# Call C6: the fp16 and fp32 sweeps, and the tests that read the table or run every kernel.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c6.txt) 2>&1
build/gpu/tools/normlab check --kernel ch09_layernorm@slim_lanes32x3_held --op layernorm --dtype bf16 --rows 37 --cols 576 2>&1 | tail -5
export PYTHONPATH=/tmp/peers:/tmp/peers/nvidia_cutlass_dsl/dsl_packages
for d in fp16 fp32; do
  python3 bench/compare_peers.py --sweep $d --build build/gpu --out $L/sweep --require-torch --budget-s 200 > $L/sweep-$d.log 2>&1; echo "sweep $d rc=$? at $(el)s"
  tail -n 3 $L/sweep-$d.log
done
timeout $(( 580 - $(el) )) ctest --test-dir build/gpu -R "test_same_function|test_dispatch_run|test_tuned|test_ch09|normlab_explain|test_registry|test_timing|test_plan" -j 8 > $L/ctest.log 2>&1; echo "ctest rc=$? at $(el)s"
grep -E "tests passed|\*\*\*|Failed|Not Run" $L/ctest.log | tail -12
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
