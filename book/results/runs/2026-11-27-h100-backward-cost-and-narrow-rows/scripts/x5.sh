#!/bin/bash
# Session 17: two more block configurations for RMSNorm ops, capped at 64 registers (block4_256x4: 4 blocks of 256 an SM; block4_128x8: 8 of 128), beside the dispatcher's block4_256x3 / block4_128x6, sweep entries in one process, two rounds.
exec > >(tee $OUT/x5.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/ch09c; cp .deps/s17/exp/ch09_cap64 $B; chmod +x $B
for i in 1 2; do
for shape in "4096 8192 bf16" "16384 4096 bf16" "4096 5000 bf16" "16384 4096 fp16" "4096 4096 fp32" "16384 2048 bf16"; do set -- $shape
  for op in rmsnorm add_rmsnorm; do echo "== $shape $op"; $B --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "ch09_${op}( |@block4_(256|128))|FAIL" | awk '{print $2, $4, $5, $(NF-2)}'; done
done; done
date -u
