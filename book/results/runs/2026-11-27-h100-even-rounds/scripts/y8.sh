#!/bin/bash
# Session 18: chapter 09's narrow LayerNorm on aligned rows that do not fill their group of lanes: one counted merge of the lanes' moments (ch09_counted) against chapter 07's two reductions (ch09, the committed build); the dispatcher's line, order swapped each round.
exec > >(tee $OUT/y8.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in ch09 ch09_counted; do cp .deps/s18/exp/$e /tmp/; chmod +x /tmp/$e; done
for i in 1 2 3; do
if [ $((i % 2)) = 1 ]; then order="ch09 ch09_counted"; else order="ch09_counted ch09"; fi
for shape in "8192 576 bf16" "8192 520 bf16" "8192 640 bf16" "8192 320 bf16" "8192 576 fp16" "8192 288 fp32" "8192 200 fp32" "32768 640 bf16" "8192 768 bf16"; do set -- $shape
  for op in layernorm add_layernorm; do
  for e in $order; do echo "== $shape $op $e"; timeout 30 /tmp/$e --rows $1 --cols $2 --dtype $3 --op $op --kernel "ch09_$op" | grep -E "ch09_$op |FAIL|rror"; done
done; done; done
date -u
