#!/bin/bash
# Chapter 09 narrow rows: narrow16x5 / narrow8x9 (fewer idle lanes, shorter shuffles) against narrow32x3.
exec > >(tee $OUT/s35.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
xz -dc .deps/carry12/chx2.xz > /tmp/chx2 && chmod +x /tmp/chx2 || exit 1
for round in 1 2; do
for shape in "8192 576 bf16" "8192 576 fp16" "8192 640 bf16" "16384 576 bf16" "8192 576 fp32"; do
  set -- $shape
  echo "== r$round $*"; /tmp/chx2 --rows $1 --cols $2 --dtype $3 | grep -E "^09 " | grep -E "narrow32x3 |narrow32x4 |narrow32x8 |narrow16x5|narrow8x9|@block"
done; done
date -u
