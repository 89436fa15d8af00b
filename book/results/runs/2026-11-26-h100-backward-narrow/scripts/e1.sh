#!/bin/bash
# Chapter 08 staged backward: base (main 10dd80a) against the staged kernel, stages 2..4,
# s1 (launch bounds min 1) and s2 (RMSNorm 2-vector kernels held to 64 registers).
exec > >(tee $OUT/e1.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/bins; mkdir -p $B && tar -xJf .deps/e1/bins.txz -C $B
R=$OUT/res; mkdir -p $R
roof() { awk '/^08/{print $2, $(NF-2)}' | grep -v atomic; }
for shape in "16384 4096 bf16" "2048 8192 fp32" "4096 8192 bf16" "8192 576 bf16" "16384 4096 fp16"; do set -- $shape
  for i in 1 2; do
    echo "$1x$2-$3 base $($B/base/ch08_backward --rows $1 --cols $2 --dtype $3 | roof | tr '\n' ' ')"
    for v in s1 s2; do for st in 2 3 4; do
      if [ $3 = fp32 ] && [ $st != 2 ]; then continue; fi
      echo "$1x$2-$3 $v-$st $(NORMLAB_EXP_STAGES=$st $B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 2>&1 | tee $R/$1x$2-$3-$v-$st-$i.txt | roof | tr '\n' ' ')"
    done; done
  done
done
date -u
grep -l -i "fail\|error" $R/*.txt; echo "files with fail/error above"
S="compute-sanitizer --error-exitcode 1"
for tool in memcheck racecheck; do for st in 2 3; do
  for a in "--rows 37 --cols 1024 --dtype bf16 --quick" "--rows 300 --cols 4096 --dtype bf16 --quick" "--rows 35 --cols 1032 --quick"; do
    NORMLAB_EXP_STAGES=$st $S --tool $tool $B/s1/ch08_backward $a > $R/san-$tool-$st.txt 2>&1; echo "$tool s1-$st $a rc=$?"; done; done; done
date -u
tar -czf $OUT/e1.tgz -C $OUT res
