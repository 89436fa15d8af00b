#!/bin/bash
# Experiment: chapter 09's block kernels on a persistent grid (persist), and with the weight and
# bias staged in shared memory once per block (stage), against main (b324dd4).
exec > >(tee $OUT/s10.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/bx; mkdir -p $B && tar -xJf .deps/carry6/bx.txz -C $B
R=$OUT/res; mkdir -p $R
for shape in "4096 8192 bf16" "16384 4096 bf16" "2048 8192 fp32" "4096 5000 bf16"; do set -- $shape
  for i in 1 2; do for v in main persist stage; do
    $B/$v/ch09_every_width --rows $1 --cols $2 --dtype $3 > $R/ch09-$1x$2-$3-$v-$i.txt 2>&1
    echo "$1x$2-$3 $v $(grep -E "^09  ch09_[a-z_]+ " $R/ch09-$1x$2-$3-$v-$i.txt | awk '{print $2, $4, $(NF-2)}' | tr '\n' ' ')"
  done; done
done
grep -c FAIL $R/*.txt | grep -v ":0" ; echo "fails above (none if empty)"
compute-sanitizer --tool memcheck --error-exitcode 1 $B/stage/ch09_every_width --rows 67 --cols 8192 --dtype bf16 --quick > /dev/null 2>&1; echo "memcheck stage rc=$?"
tar -czf $OUT/s10.tgz -C $OUT res
