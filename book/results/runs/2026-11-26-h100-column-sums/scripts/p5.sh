#!/bin/bash
# Chapter 08 base (31fa847), flat (sum_partials in one launch, float4 loads, 64 slices added by one thread) and new (the same, slices added in runs of 8), alternated, two rounds.
exec > >(tee $OUT/p5.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
xz -dc .deps/s16/ch08-new.xz > /tmp/ch08-new && chmod +x /tmp/ch08-new
xz -dc .deps/s16/ch08-base.xz > /tmp/ch08-base && chmod +x /tmp/ch08-base; xz -dc .deps/s16/ch08-flat.xz > /tmp/ch08-flat && chmod +x /tmp/ch08-flat
for i in 1 2; do
for shape in "2048 8192 fp32" "16384 4096 bf16" "4096 8192 bf16" "8192 576 bf16" "65536 256 bf16"; do set -- $shape
  for b in base flat new; do echo "== $shape $b"; /tmp/ch08-$b --rows $1 --cols $2 --dtype $3 | grep -E "ch08_|FAIL" | grep -v atomic | awk '{print $2, $(NF-2)}'; done
done; done
date -u
