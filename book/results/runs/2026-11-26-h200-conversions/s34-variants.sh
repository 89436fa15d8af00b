#!/bin/bash
# LayerNorm statistics: each warp's two passes, then one exchange of the warps' moments (wm) against two block_sums (st0).
exec > >(tee $OUT/s34.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/wm && tar -xJf .deps/carry12/wm.txz -C /tmp/wm || exit 1
for round in 1 2; do
for shape in "16384 4096 bf16 layernorm" "4096 8192 bf16 layernorm" "2048 8192 fp32 layernorm" "4096 5000 bf16 layernorm" "16384 4096 fp16 layernorm" "4096 8192 bf16 add_layernorm" "16384 4096 bf16 add_layernorm" "1 4096 bf16 layernorm" "16384 4096 bf16 rmsnorm" "4096 8192 bf16 rmsnorm" "8192 576 bf16 layernorm"; do
  set -- $shape
  for v in st0 bs; do echo "== r$round $v $*"; /tmp/wm/ch09_$v --rows $1 --cols $2 --dtype $3 --op $4 | grep -E "^09 |empty" | grep -E "ch09_$4 |block4_128x6|block4_256x3|block2_512x2|block1 |empty"; done
done; done
date -u
