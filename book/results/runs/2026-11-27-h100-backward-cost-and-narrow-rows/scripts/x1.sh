#!/bin/bash
# Session 17: where the fp32 2048 x 8192 backward's fixed cost goes. e0 base; e1 no column-sum launch; e2 the column sums twice; e3 no partial rows stored and no column sums (e1, e3 fail verification; timing only).
exec > >(tee $OUT/x1.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in 0 1 2 3; do cp .deps/s17/exp/ch08_e$e /tmp/; chmod +x /tmp/ch08_e$e; done
for i in 1 2 3; do
for shape in "2048 8192 fp32" "8192 8192 fp32" "16384 4096 bf16"; do set -- $shape
  for e in 0 1 2 3; do echo "== $shape e$e"; /tmp/ch08_e$e --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |ch08_" | grep -v atomic; done
done; done
date -u
