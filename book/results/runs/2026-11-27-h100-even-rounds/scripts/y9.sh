#!/bin/bash
# Session 18: fp32 backward rows keeping g = dy * scale in dy's registers after the first pass, so the dx pass loads no weight (ch08_keepg), against the committed code (ch08_base); order swapped each round.
exec > >(tee $OUT/y9.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in base keepg; do cp .deps/s18/exp/ch08_$e /tmp/; chmod +x /tmp/ch08_$e; done
for i in 1 2 3 4; do
if [ $((i % 2)) = 1 ]; then order="base keepg"; else order="keepg base"; fi
for shape in "2048 8192 fp32" "8192 4096 fp32" "4097 1025 fp32" "16384 2048 fp32" "16384 4096 bf16"; do set -- $shape
  for e in $order; do echo "== $shape $e"; timeout 60 /tmp/ch08_$e --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |FAIL|rror" | grep -v atomic; done
done; done
date -u
