#!/bin/bash
# Call C4: the same at 1, 32 and 256 rows for bf16 add + norm, and for fp16 and fp32 every op;
# the sanitizers on the held slim_lanes kernels; stage the peers' second part.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c4.txt) 2>&1
cp -r .deps/peers-2 /tmp/peerstage/
T=build/gpu/tools/normlab
for tool in memcheck racecheck; do
  for args in "rmsnorm bf16 5 256 32x1" "layernorm bf16 37 576 32x3" "add_rmsnorm fp16 9 1024 32x4" "layernorm fp32 3 500 32x4" "rmsnorm fp32 130 256 32x2"; do
    set -- $args
    op=$1; [ ${op#add_} != $op ] && extra="--in-place" || extra=""
    compute-sanitizer --tool $tool --error-exitcode 9 $T check --kernel ch09_${1}@slim_lanes$5_held --op $1 --dtype $2 --rows $3 --cols $4 $extra > $L/san.tmp 2>&1
    echo "$tool $args rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|verdict|passed|FAIL|refused' $L/san.tmp | head -3 | tr '\n' ' ')"
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
$T tune --out build/tuned --update --kernel / --rows 1,32,256 --dtypes bf16 --ops add_rmsnorm,add_layernorm --repetitions 15 --budget-s $(( 300 - $(el) )) > $L/tune2.log 2>&1; echo "tune2 rc=$? at $(el)s"
$T tune --out build/tuned --update --kernel / --rows 1,32,256 --dtypes fp16,fp32 --repetitions 15 --budget-s $(( 570 - $(el) )) > $L/tune3.log 2>&1; echo "tune3 rc=$? at $(el)s"
tail -qn 1 $L/tune2.log $L/tune3.log; grep -iE "fail|mismatch|stopped" $L/tune2.log $L/tune3.log | head
cp build/tuned/nvidia-h200.4200GBps.tsv $L/
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
