#!/bin/bash
# Session 18: the block's column sums stored right after its last row's first pass (ch08_peel: the last row peeled out of the loop; the build spills in six misaligned / fp16 kernels, none run here) against the committed code (ch08_rule); order swapped each round.
exec > >(tee $OUT/y6.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in rule peel; do cp .deps/s18/exp/ch08_$e /tmp/; chmod +x /tmp/ch08_$e; done
for i in 1 2 3 4; do
if [ $((i % 2)) = 1 ]; then order="rule peel"; else order="peel rule"; fi
for shape in "2048 8192 fp32" "4096 8192 bf16" "16384 4096 bf16" "8192 8192 fp32"; do set -- $shape
  for e in $order; do echo "== $shape $e"; timeout 60 /tmp/ch08_$e --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |FAIL|rror" | grep -v atomic; done
done; done
date -u
