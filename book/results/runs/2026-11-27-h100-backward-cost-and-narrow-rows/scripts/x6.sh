#!/bin/bash
# Session 17: e0 base against e5 (the next row requested at the top of the loop, before the first pass over this row), three rounds.
exec > >(tee $OUT/x6.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in 0 5; do cp .deps/s17/exp/ch08_e$e /tmp/; chmod +x /tmp/ch08_e$e; done
for i in 1 2 3; do
for shape in "2048 8192 fp32" "16384 4096 bf16" "4096 8192 bf16" "8192 8192 fp32"; do set -- $shape
  for e in 0 5; do echo "== $shape e$e"; /tmp/ch08_e$e --rows $1 --cols $2 --dtype $3 | grep -E "ch08_|FAIL" | grep -v atomic | awk '{print $2, $4, $5, $(NF-2)}'; done
done; done
date -u
