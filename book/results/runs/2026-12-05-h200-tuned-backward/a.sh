#!/bin/bash
# Call A: build with the 2-block floor, memcheck/synccheck the one-block cases, test_ch08/test_ch10,
# then tune the backward (bf16) into a copy of the table.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/a.txt) 2>&1
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "built rc=$? at $(el)s"
T=build/gpu/tools/normlab
for t in memcheck racecheck synccheck; do
  for a in "ch10_layernorm_backward_cluster@512x4 --op layernorm_backward --dtype bf16 --rows 9 --cols 4104 --bias" \
           "ch10_rmsnorm_cluster@512x4 --op rmsnorm --dtype bf16 --rows 9 --cols 4096" \
           "ch10_rmsnorm_cluster_row@256x8 --op rmsnorm --dtype bf16 --rows 3 --cols 1024"; do
    compute-sanitizer --tool $t --error-exitcode 9 $T check --kernel $a > $L/san.tmp 2>&1
    echo "$t $a rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|FAIL|PASS' $L/san.tmp | head -2 | cut -c1-120 | tr '\n' ' ')"
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
ctest --test-dir build/gpu -R "^test_ch08$|^test_ch10$|sanitize_memcheck.*ch10_backward_one_block" -j 3 > $L/ctest.log 2>&1; echo "ctest rc=$? at $(el)s"
grep -E "tests passed|\*\*\*|Failed" $L/ctest.log | tail -6
[ "$1" = notune ] && { cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs; exit 0; }
mkdir -p /tmp/tuned && cp kernels/tuned/nvidia-h200.4200GBps.tsv /tmp/tuned/
$T tune --out /tmp/tuned --ops layernorm_backward,rmsnorm_backward --dtypes bf16 --repetitions 15 --budget-s $(( 545 - $(el) )) > $L/tune.log 2>&1; echo "tune rc=$? at $(el)s"
grep -E "FAILED|stopped|added" $L/tune.log | head; tail -3 $L/tune.log
cp /tmp/tuned/nvidia-h200.4200GBps.tsv $L/
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
