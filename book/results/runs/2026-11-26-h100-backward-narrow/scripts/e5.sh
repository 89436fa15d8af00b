#!/bin/bash
# Chapter 08: a vector a thread (512 threads for a 4096-wide 16-bit row, 2 blocks an SM) against the committed 2 vectors (n2).
exec > >(tee $OUT/e5.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/bins5; mkdir -p $B && tar -xJf .deps/e5/bins.txz -C $B
roof() { awk '/^08/{print $2, $(NF-2)}' | grep -v atomic; }
for shape in "16384 4096 bf16" "16384 4096 fp16" "8192 2048 bf16" "32768 1536 bf16" "4096 2048 fp32"; do set -- $shape
  for i in 1 2; do
    echo "$1x$2-$3 n2 $($B/n2/ch08_backward --rows $1 --cols $2 --dtype $3 2>&1 | roof | tr '\n' ' ')"
    echo "$1x$2-$3 v1 $(NORMLAB_EXP_V1=1 $B/v1b/ch08_backward --rows $1 --cols $2 --dtype $3 2>&1 | roof | tr '\n' ' ')"
  done
done
date -u
