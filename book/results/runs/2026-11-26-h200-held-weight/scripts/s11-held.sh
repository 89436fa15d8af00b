#!/bin/bash
# NEXT SESSION: chapter 08 with the weight held in registers (branch prepared/weights-held) against
# main (eb7ac2d's build, sm_90). carry [".deps/carry7", ".deps/run"]. ~2 minutes.
exec > >(tee $OUT/s11.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/bh; mkdir -p $B && tar -xJf .deps/carry7/bh.txz -C $B
R=$OUT/res; mkdir -p $R
for shape in "16384 4096 bf16" "4096 8192 bf16" "8192 576 bf16" "2048 8192 fp32" "16384 4096 fp16"; do set -- $shape
  for i in 1 2 3; do for v in main held; do
    $B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 > $R/ch08-$1x$2-$3-$v-$i.txt 2>&1
    echo "$1x$2-$3 $v $(grep -E '^08' $R/ch08-$1x$2-$3-$v-$i.txt | grep -v atomic | awk '{print $2, $4, $(NF-2)}' | tr '\n' ' ')"
  done; done
done
for tool in memcheck racecheck; do for a in "--rows 37 --cols 1029 --dtype bf16 --quick" "--rows 37 --cols 1028 --quick" "--rows 2000 --cols 1024 --dtype bf16 --quick" "--rows 300 --cols 4096 --dtype fp16 --quick"; do
  compute-sanitizer --tool $tool --error-exitcode 1 $B/held/ch08_backward $a > /dev/null 2>&1; echo "$tool held $a rc=$?"; done; done
tar -czf $OUT/s11.tgz -C $OUT res
