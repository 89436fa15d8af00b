#!/bin/bash
# EXPERIMENT: the pairs kernel's first pass reading row r + 1 8 or 12 chunks at a time (f8, f12)
# instead of 4 (base, the committed code), two rounds alternated.
exec > >(tee $OUT/c15.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/c15 && tar -xJf .deps/s26/f.txz -C /tmp/c15
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "layernorm 2 9437184" "rmsnorm 2 9437184" "layernorm 4 6291456" "layernorm 16 6291456"; do
    set -- $shape
    for b in base f8 f12; do
      echo "== round $round $b $1 $2 x $3"; /tmp/c15/ch10_$b --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|error|FAIL|wrong"
    done
  done
done
date -u
