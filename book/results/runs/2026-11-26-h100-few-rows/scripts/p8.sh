#!/bin/bash
# Chapter 09's configurations one by one (sweep entries) at 1 x 4096 and 32 x 4096 bf16, RMSNorm and LayerNorm, two rounds (build with the few-row parameter prefetch).
exec > >(tee $OUT/p8.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
xz -dc .deps/s16/ch09-new.xz > /tmp/ch09 && chmod +x /tmp/ch09
for i in 1 2; do for rows in 1 32; do for op in rmsnorm layernorm; do
  echo "== $rows x 4096 bf16 $op $i"; /tmp/ch09 --rows $rows --cols 4096 --dtype bf16 --op $op | grep -E "^09" | awk '{print $2, $5}' | sort -k2 -n
done; done; done
date -u
