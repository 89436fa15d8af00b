#!/bin/bash
# Session 17: chapter 09's block4 configurations with rows staged in shared memory by cp.async (NL_STAGES = 2, 3, 4 stages; unset = the committed register kernel), one binary, alternated, two rounds.
exec > >(tee $OUT/x3.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/ch09s; cp .deps/s17/exp/ch09_staged $B; chmod +x $B
for i in 1 2; do
for shape in "4096 8192 bf16" "16384 4096 bf16" "4096 5000 bf16" "8192 4096 fp32" "16384 2048 bf16"; do set -- $shape
  for st in 0 2 3 4; do echo "== $shape stages $st"; NL_STAGES=$st $B --rows $1 --cols $2 --dtype $3 --kernel "ch09_" 2>&1 | grep -E "^09  ch09_(rmsnorm|layernorm) |staged:|FAIL" | awk '{print $1, $2, $4, $5, $(NF-2)}'; done
done; done
date -u
