#!/bin/bash
# Chapter 08: the persistent grid capped at NL_GRID blocks (unset: the committed even_grid over every resident block), alternated.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/g1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=.deps/s22b/ch08_backward
for r in 1 2; do
  for op in layernorm rmsnorm; do
    for cap in 0 112 96 80 64; do
      echo "== r$r $op fp32 2048x8192 NL_GRID=$cap"
      NL_GRID=$cap timeout 60 $B --op ${op}_backward --rows 2048 --cols 8192 --dtype fp32 2>&1 | grep -E "backward|FAIL" | grep -v atomic
    done
  done
  for cap in 0 96 64; do
    echo "== r$r layernorm fp32 4096x8192 NL_GRID=$cap"
    NL_GRID=$cap timeout 60 $B --op layernorm_backward --rows 4096 --cols 8192 --dtype fp32 2>&1 | grep -E "backward|FAIL" | grep -v atomic
  done
done
date -u
