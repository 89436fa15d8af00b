#!/bin/bash
# Call C2: rebuild with the table C1 filled, the tests that read it or run every kernel of a
# call, the sanitizers on the cluster row kernels, and the second part of the peers' wheels.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c2.txt) 2>&1
cp -r .deps/peers-2 /tmp/peerstage/
cp build/tuned/nvidia-h200.4200GBps.tsv kernels/tuned/
cmake --build --preset gpu -j 16 > $L/build2.log 2>&1; echo "rebuilt rc=$? at $(el)s"
T=build/gpu/tools/normlab
for tool in memcheck racecheck synccheck; do
  for args in "rmsnorm bf16 3 24576 128x1" "layernorm bf16 37 24576 128x4" "add_rmsnorm fp16 5 32768 256x2" "add_layernorm fp32 2 16384 256x8" "layernorm bf16 300 4096 256x1"; do
    set -- $args
    op=$1; [ ${op#add_} != $op ] && extra="--in-place" || extra=""
    compute-sanitizer --tool $tool --error-exitcode 9 $T check --kernel ch10_${1}_cluster_row@$5 --op $1 --dtype $2 --rows $3 --cols $4 $extra > $L/san.tmp 2>&1
    echo "$tool $args rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|verdict|passed|FAIL' $L/san.tmp | head -3 | tr '\n' ' ')"
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
timeout $(( 560 - $(el) )) ctest --test-dir build/gpu -R "test_same_function|test_dispatch_run|test_tuned|test_ch10|normlab_explain|test_registry|test_plan" -j 8 > $L/ctest.log 2>&1; echo "ctest rc=$? at $(el)s"
grep -E "tests passed|\*\*\*|Failed|Not Run" $L/ctest.log | tail -12
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
