#!/bin/bash
# Session 17: a row of up to 8192 chunks in one block of 1024 threads, 8 vectors a thread (block8_1024, chapter 09's block kernel at a 64-register cap; built with spills allowed, 96-240 bytes) against chapter 10's kernels, two rounds.
exec > >(tee $OUT/x7.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cp .deps/s17/exp/ch09_b8 /tmp/b8; cp .deps/s17/exp/ch10 /tmp/ch10; chmod +x /tmp/b8 /tmp/ch10
for i in 1 2; do
for shape in "512 65536 bf16" "1024 32768 bf16" "512 65536 fp16" "256 65536 fp32"; do set -- $shape
  for op in rmsnorm add_rmsnorm; do echo "== $shape $op"
    /tmp/b8 --rows $1 --cols $2 --dtype $3 --op $op --kernel "@block8_1024" 2>&1 | grep -E "^09 |FAIL" | awk '{print $2, $4, $5, $(NF-2)}'
    /tmp/ch10 --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "^10 |FAIL" | awk '{print $2, $4, $5, $(NF-2)}'
  done
done; done
date -u
