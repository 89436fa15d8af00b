#!/bin/bash
# Session 17: every chapter 09 configuration that holds the row (sweep entries, one process a shape) at rows of 1024 columns and under, where the dispatcher takes a narrow configuration; two rounds.
exec > >(tee $OUT/x8.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/ch09m; cp .deps/s17/exp/ch09_main $B; chmod +x $B
for i in 1 2; do
for shape in "1024 1024 fp32" "4096 1024 fp32" "16384 1024 fp32" "1024 1024 bf16" "8192 1024 bf16" "2048 512 fp32" "8192 576 bf16"; do set -- $shape
  for op in rmsnorm layernorm; do echo "== $shape $op"; $B --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "ch09_${op}( |@)|FAIL" | awk '{print $2, $4, $5, $(NF-2)}'; done
done; done
date -u
