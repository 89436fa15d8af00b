#!/bin/bash
# Next session, first device call: binaries built on the CPU machine (sm_90), carried in
# .deps/carry/bins.tgz; no build on the device. Alternates the committed kernels (base) with
# the prepared changes (fwd: parameters ahead, predicated; bwd1: whole rows; bwd2: + predicated weights; bwd3: + PDL column sums)
# and runs the sanitizers on the changed programs.
exec > >(tee $OUT/s7.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/bins; mkdir -p $B && tar -xzf .deps/carry/bins.tgz -C $B && ls -R $B | head -20
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=$OUT/res; mkdir -p $R
roof() { awk '/^0[789]/{print $2, $(NF-2)}'; }
for shape in "16384 4096 bf16" "4096 8192 bf16" "2048 8192 fp32"; do set -- $shape
  for i in 1 2 3; do for v in base bwd1 bwd2 bwd3; do
    echo "$1x$2-$3 $v $($B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 | grep -v atomic | roof | tr '\n' ' ')"
  done; done
done > $R/ch08.txt
sort -s -k1,2 $R/ch08.txt
for shape in "16384 4096 bf16" "4096 8192 bf16" "8192 576 bf16" "2048 8192 fp32" "1 4096 bf16" "32 4096 bf16"; do set -- $shape
  for i in 1 2; do for v in base fwd; do
    $B/$v/ch09_every_width --rows $1 --cols $2 --dtype $3 > $R/ch09-$1x$2-$3-$v-$i.txt 2>&1
    $B/$v/ch07_real_tensors --rows $1 --cols $2 --dtype $3 > $R/ch07-$1x$2-$3-$v-$i.txt 2>&1
  done; done
done
for f in $R/ch09-*-1.txt; do echo "== $f"; grep -E "^09  ch09_[a-z_]+ " $f | awk '{print $2, $(NF-2)}' | tr '\n' ' '; echo; done
S="compute-sanitizer --error-exitcode 1"
for tool in memcheck racecheck; do
  for v in bwd1 bwd2 bwd3; do for a in "--rows 37 --cols 1029 --dtype bf16 --quick" "--rows 37 --cols 1028 --quick" "--rows 2000 --cols 1024 --dtype bf16 --quick"; do
    $S --tool $tool $B/$v/ch08_backward $a > /dev/null 2>&1; echo "$tool $v ch08 $a rc=$?"; done; done
  for a in "--rows 37 --cols 576 --dtype bf16 --quick" "--rows 35 --cols 1021 --quick" "--rows 3 --cols 4101 --dtype fp16 --quick" "--rows 67 --cols 8192 --dtype bf16 --quick" "--rows 67 --cols 4096 --dtype bf16 --quick"; do
    $S --tool $tool $B/fwd/ch09_every_width $a > /dev/null 2>&1; echo "$tool fwd ch09 $a rc=$?"; done
  for a in "--rows 37 --cols 1029 --dtype bf16 --quick" "--rows 37 --cols 1028 --quick"; do
    $S --tool $tool $B/fwd/ch07_real_tensors $a > /dev/null 2>&1; echo "$tool fwd ch07 $a rc=$?"; done
done | tee $R/sanitizers.txt
tar -czf $OUT/s7.tgz -C $OUT res
