#!/bin/bash
# Session 18: fp32 2048 x 8192 backward: balanced grid (e1), flat column sums 512/256 threads (e2/e3), fused cooperative (e4, e5 balanced), no sums (e6), balanced+flat (e7)
exec > >(tee $OUT/y1.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in 0 1 2 3 4 5 6 7; do cp .deps/s18/exp/ch08_e$e /tmp/; chmod +x /tmp/ch08_e$e; done
for i in 1 2 3; do
for shape in "2048 8192 fp32" "16384 4096 bf16"; do set -- $shape
  for e in 0 1 2 3 4 5 6 7; do echo "== $shape e$e"; timeout 60 /tmp/ch08_e$e --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |ch08_|rror" | grep -v atomic; done
done
for rows in 1980 2112; do for e in 0 6; do echo "== $rows 8192 fp32 e$e"; timeout 60 /tmp/ch08_e$e --rows $rows --cols 8192 --dtype fp32 | grep -E "^ *08 |rror" | grep -v atomic; done; done
done
date -u
