#!/bin/bash
# Chapter 08 narrow kernel (n1: a warp a row) against main (base); test_ch08; sanitizers.
exec > >(tee $OUT/e4.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/bins4; mkdir -p $B && tar -xJf .deps/e4/bins.txz -C $B
R=$OUT/res; mkdir -p $R
roof() { awk '/^08/{print $2, $(NF-2)}' | grep -v atomic; }
for shape in "8192 576 bf16" "32768 576 bf16" "8192 1024 bf16" "65536 256 bf16" "8192 256 fp32" "4096 512 fp32"; do set -- $shape
  for i in 1 2; do for v in n1 n2; do
    echo "$1x$2-$3 $v $($B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 2>&1 | tee $R/$1x$2-$3-$v-$i.txt | roof | tr '\n' ' ')"
  done; done
done
date -u
$B/n2/test_ch08 > $R/test_ch08.txt 2>&1; echo "test_ch08 rc=$?"; tail -3 $R/test_ch08.txt
S="compute-sanitizer --error-exitcode 1"
for tool in memcheck racecheck; do
  for a in "--rows 37 --cols 576 --dtype bf16 --quick" "--rows 300 --cols 1024 --dtype bf16 --quick" "--rows 35 --cols 256 --quick" "--rows 9 --cols 64 --dtype fp16 --quick"; do
    $S --tool $tool $B/n2/ch08_backward $a > $R/san-$tool.txt 2>&1; echo "$tool n2 $a rc=$?"; done; done
date -u
tar -czf $OUT/e4.tgz -C $OUT res
