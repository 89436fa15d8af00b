#!/bin/bash
# Second measurement: chapter 08 whole rows (bwd1), + predicated weights + PDL (bwd3), whole rows
# + PDL with predicated weights only for LayerNorm and fp32 (bwd5); forward: residual first +
# parameters pipelined (fwd), residual first only (fwdR), parameters pipelined for add ops only (fwdA).
exec > >(tee $OUT/s8.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/bins; mkdir -p $B && tar -xJf .deps/carry2/bins.txz -C $B && ls $B
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=$OUT/res; mkdir -p $R
roof() { awk '/^0[789]/{print $2, $(NF-2)}'; }
for shape in "16384 4096 bf16" "4096 8192 bf16" "2048 8192 fp32" "8192 576 bf16"; do set -- $shape
  for i in 1 2 3; do for v in base bwd1 bwd3 bwd5; do
    echo "$1x$2-$3 $v $($B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 | grep -v atomic | roof | tr '\n' ' ')"
  done; done
done > $R/ch08.txt
sort -s -k1,2 $R/ch08.txt
for shape in "16384 4096 bf16" "4096 8192 bf16" "8192 576 bf16" "2048 8192 fp32" "32 4096 bf16" "4096 5000 bf16"; do set -- $shape
  for i in 1 2; do for v in base fwd fwdR fwdA; do
    $B/$v/ch09_every_width --rows $1 --cols $2 --dtype $3 > $R/ch09-$1x$2-$3-$v-$i.txt 2>&1
    $B/$v/ch07_real_tensors --rows $1 --cols $2 --dtype $3 > $R/ch07-$1x$2-$3-$v-$i.txt 2>&1
  done; done
done
for f in $R/ch09-*.txt $R/ch07-*.txt; do echo "== $(basename $f) $(grep -E "^0[79]  ch0[79]_[a-z_]+ " $f | awk '{print $2, $(NF-2)}' | tr '\n' ' ')"; done
S="compute-sanitizer --error-exitcode 1"
for tool in memcheck racecheck; do
  for a in "--rows 37 --cols 1029 --dtype bf16 --quick" "--rows 37 --cols 1028 --quick" "--rows 2000 --cols 1024 --dtype bf16 --quick" "--rows 300 --cols 4096 --dtype fp16 --quick"; do
    $S --tool $tool $B/bwd5/ch08_backward $a > /dev/null 2>&1; echo "$tool bwd5 ch08 $a rc=$?"; done
  for v in fwdR fwdA; do
  for a in "--rows 37 --cols 576 --dtype bf16 --quick" "--rows 35 --cols 1021 --quick" "--rows 3 --cols 4101 --dtype fp16 --quick" "--rows 67 --cols 8192 --dtype bf16 --quick" "--rows 67 --cols 4096 --dtype bf16 --quick"; do
    $S --tool $tool $B/$v/ch09_every_width $a > /dev/null 2>&1; echo "$tool $v ch09 $a rc=$?"; done
  for a in "--rows 37 --cols 1029 --dtype bf16 --quick" "--rows 37 --cols 1028 --quick"; do
    $S --tool $tool $B/$v/ch07_real_tensors $a > /dev/null 2>&1; echo "$tool $v ch07 $a rc=$?"; done
  done
done | tee $R/sanitizers.txt
tar -czf $OUT/s8.tgz -C $OUT res
