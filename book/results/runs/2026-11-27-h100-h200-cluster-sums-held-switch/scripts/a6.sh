#!/bin/bash
# Session 20: add + norm on many rows wider than a cluster holds, chapter 07 against chapter 10's kernels (normlab tour).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
xz -dc .deps/c20/n.xz > /tmp/normlab; chmod +x /tmp/normlab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for shape in "fp32 128 1048576" "fp32 512 262144" "bf16 128 1048576" "bf16 256 262152"; do set -- $shape; for op in add_rmsnorm add_layernorm; do
  for k in ch07_$op ch10_$op; do echo "== $op $1 $2 x $3 $k"; timeout 120 /tmp/normlab tour --op $op --dtype $1 --rows $2 --cols $3 --kernel $k 2>&1 | grep -E "ch07_|ch10_|FAIL|rror"; done
done; done
date -u
