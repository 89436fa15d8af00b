#!/bin/bash
# Chapter 08: partial rows stored as float4 and discarded from L2 once summed (d1) against the committed code (n2).
exec > >(tee $OUT/e6.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/bins6; mkdir -p $B && tar -xJf .deps/e6/bins.txz -C $B
roof() { awk '/^08/{print $2, $(NF-2)}' | grep -v atomic; }
for shape in "16384 4096 bf16" "2048 8192 fp32" "4096 8192 bf16" "8192 576 bf16" "16384 4096 fp16"; do set -- $shape
  for i in 1 2 3; do for v in n2 d1; do
    echo "$1x$2-$3 $v $($B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 2>&1 | roof | tr '\n' ' ')"
  done; done
done
date -u
$B/d1/test_ch08 > $OUT/test_ch08.txt 2>&1; echo "test_ch08 rc=$?"; tail -n 3 $OUT/test_ch08.txt
$B/d1/test_known_wrong_ch08 > $OUT/test_kw.txt 2>&1; echo "test_known_wrong_ch08 rc=$?"; tail -n 2 $OUT/test_kw.txt
S="compute-sanitizer --error-exitcode 1"
for tool in memcheck racecheck; do
  for a in "--rows 300 --cols 2048 --dtype bf16 --quick" "--rows 35 --cols 1024 --quick" "--rows 37 --cols 576 --dtype bf16 --quick"; do
    $S --tool $tool $B/d1/ch08_backward $a > /dev/null 2>&1; echo "$tool d1 $a rc=$?"; done; done
for v in n2 d1; do for op in rmsnorm_backward layernorm_backward; do
  ncu --cache-control none --kernel-name-base mangled -k "regex:StorePartialRow|sum_partials" --launch-skip 6 --launch-count 4 --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum $B/$v/ch08_backward --rows 2048 --cols 8192 --kernel ch08_$op > $OUT/ncu-$v-$op.txt 2>&1
  echo "== $v $op"; grep -E "^  [a-zA-Z_]|dram__bytes|gpu__time" $OUT/ncu-$v-$op.txt | sed -E 's/\(Gradients.*//; s/_ZN7normlab4ch08//' | cut -c1-100
done; done
date -u
tar -czf $OUT/e6.tgz -C $OUT .
