#!/bin/bash
# Session 18: the column sums at 4 blocks an SM (ch08_wave, 32 registers) against 3 (ch08_even, 36 registers), alternated, three rounds; ncu durations of sum_partials in both.
exec > >(tee $OUT/y4.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in even wave; do cp .deps/s18/exp/ch08_$e /tmp/; chmod +x /tmp/ch08_$e; done
for i in 1 2 3; do
for shape in "2048 8192 fp32" "4096 8192 bf16" "16384 4096 bf16" "8192 576 bf16" "1000 12288 bf16" "4096 6400 fp16"; do set -- $shape
  for e in even wave; do echo "== $shape $e"; timeout 60 /tmp/ch08_$e --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |FAIL|rror" | grep -v atomic; done
done; done
date -u
for e in even wave; do echo "== ncu $e"
ncu --clock-control none --cache-control none -k regex:"sum_partials" --launch-skip 10 -c 4 --metrics gpu__time_duration.sum,launch__waves_per_multiprocessor,launch__occupancy_limit_registers /tmp/ch08_$e --rows 2048 --cols 8192 --dtype fp32 --op layernorm_backward --kernel ch08_layernorm_backward 2>&1 | grep -E "^  [a-z]|gpu__time|launch__" | sed -E 's/\(const [^)]*\)//; s/, Context.*//'
done
date -u
