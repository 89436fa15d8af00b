#!/bin/bash
# Session 17: e0 base against e4 (the row kernels let the column sums launch at their start, not at their end), three rounds.
exec > >(tee $OUT/x2.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in 0 4; do cp .deps/s17/exp/ch08_e$e /tmp/; chmod +x /tmp/ch08_e$e; done
for i in 1 2 3; do
for shape in "2048 8192 fp32" "16384 4096 bf16" "4096 8192 bf16"; do set -- $shape
  for e in 0 4; do echo "== $shape e$e"; /tmp/ch08_e$e --rows $1 --cols $2 --dtype $3 | grep -E "ch08_|FAIL" | grep -v atomic | awk '{print $2, $4, $5, $(NF-2)}'; done
done; done
date -u
