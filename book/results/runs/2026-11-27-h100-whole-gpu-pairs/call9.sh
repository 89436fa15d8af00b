#!/bin/bash
# EXPERIMENT: the pairs kernel (NL_EXP=4) against the lean kernels (0) on more shapes, two rounds.
exec > >(tee $OUT/c9.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=.deps/s26/ch10_exp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "layernorm 1 9437184" "rmsnorm 1 9437184" "layernorm 16 6291456" "rmsnorm 16 6291456" "layernorm 8 9437184" "rmsnorm 8 9437184" "layernorm 3 14000000" "rmsnorm 3 14000000" "layernorm 6 4800000"; do
    set -- $shape
    for e in 0 4; do
      echo "== round $round NL_EXP=$e $1 $2 x $3"
      NL_EXP=$e $B --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|refuse|error|FAIL|wrong|wide"
    done
  done
done
date -u
