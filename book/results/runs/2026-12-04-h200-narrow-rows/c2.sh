#!/bin/bash
s=$(date +%s); L=$OUT/logs2; mkdir -p $L; el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c2.txt) 2>&1
cp .deps/run11/../run11/c1.sh /dev/null
N=build/gpu/tools/normlab; ls -la $N build/tuned 2>&1 | head -3
for k in slim_lanes8x4 slim_lanes16x4 slim_lanes16x5 slim_lanes32x3 slim_lanes32x4; do
  for spec in "rmsnorm bf16 37 256" "layernorm fp16 37 512 --bias" "add_rmsnorm fp32 37 256 --in-place" "rmsnorm fp32 101 128" "layernorm bf16 5 640 --bias"; do
    set -- $spec; op=$1; shift
    for tool in memcheck racecheck; do
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $N check --kernel ch09_$op@$k --op $op --dtype $1 --rows $2 --cols $3 ${@:4} > $L/san.tmp 2>&1; rc=$?
      echo "$tool rc=$rc ch09_$op@$k $*"; grep -E "SUMMARY|refused|error" $L/san.tmp | head -3
    done
  done
done > $L/sanitize.txt 2>&1
grep -c "rc=0" $L/sanitize.txt; grep -v "rc=0" $L/sanitize.txt | grep "rc=" | head
echo "sanitize at $(el)s"
echo skip-sweep; true || timeout $(( 540 - $(el) )) python3 bench/compare_peers.py --sweep bf16 --build build/gpu --out $L/sweep --require-torch --budget-s 300 > $L/sweep.log 2>&1; echo "sweep rc=$? at $(el)s"
tail -5 $L/sweep.log
cd $OUT && tar -cJf logs2.tar.xz logs2 && rm -rf logs2
