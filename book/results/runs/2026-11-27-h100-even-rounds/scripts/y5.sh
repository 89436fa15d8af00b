#!/bin/bash
# Session 18: the column sums at 4 blocks an SM (ch08_rule: the 4-block kernel only where 3 blocks an SM would take two waves) against 3 (ch08_even, 36 registers), alternated, three rounds; ncu durations of sum_partials in both.
exec > >(tee $OUT/y5.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in even rule; do cp .deps/s18/exp/ch08_$e /tmp/; chmod +x /tmp/ch08_$e; done
for i in 1 2 3; do
for shape in "2048 8192 fp32" "4096 8192 bf16" "16384 4096 bf16" "8192 576 bf16" "1000 12288 bf16" "4096 6400 fp16" "16384 8192 bf16"; do set -- $shape
  for e in even rule; do echo "== $shape $e"; timeout 60 /tmp/ch08_$e --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |FAIL|rror" | grep -v atomic; done
done; done
date -u
date -u
