#!/bin/bash
# Session 20: the crossover of the whole GPU (held form) and the split row for fp32 rows of 1.40 M to 1.60 M columns, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c20/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
for shape in "48 1400000" "48 1450000" "48 1500000" "48 1550000" "48 1600000" "12 1500000" "12 1600000"; do set -- $shape; for op in layernorm rmsnorm; do
  echo "== round $round $op $1 x $2"
  timeout 90 /tmp/v/ch10_now --dtype fp32 --op $op --rows $1 --cols $2 --kernel _ 2>&1 | grep -E "ch10_|FAIL|rror"
done; done; done
date -u
