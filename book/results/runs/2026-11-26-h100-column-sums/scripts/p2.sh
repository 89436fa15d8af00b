#!/bin/bash
# Chapter 08 with (d) one launch: the three reductions side by side on the rows the issue names, three rounds.
exec > >(tee $OUT/p2.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
xz -dc .deps/s16/ch08-new.xz > /tmp/ch08-new && chmod +x /tmp/ch08-new
for i in 1 2; do
for shape in "2048 8192 fp32" "16384 4096 bf16" "4096 8192 bf16" "8192 576 bf16" "65536 256 bf16"; do set -- $shape
  echo "== $shape"; /tmp/ch08-new --rows $1 --cols $2 --dtype $3 | grep -E "ch08_|FAIL|roof"
done; done
date -u
