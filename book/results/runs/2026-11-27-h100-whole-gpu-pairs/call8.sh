#!/bin/bash
# EXPERIMENT: the pairs kernel with L2 prefetches (NL_EXP 4 none, 5 row r + 1 at the start of
# pass 1, 6 and the next group's parameters in pass 2) beside the lean kernel (0), two rounds.
exec > >(tee $OUT/c8.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=.deps/s26/ch10_exp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "layernorm 2 9437184" "rmsnorm 2 9437184" "layernorm 4 6291456" "layernorm 2 5000000"; do
    set -- $shape
    for e in 0 4 5 6; do
      echo "== round $round NL_EXP=$e $1 $2 x $3"
      NL_EXP=$e $B --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|refuse|error|FAIL|wrong"
    done
  done
done
date -u
for e in 5 6; do
  echo "== memcheck NL_EXP=$e layernorm 3 x 5000000"
  NL_EXP=$e timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B --op layernorm --rows 3 --cols 5000000 --dtype fp32 --kernel whole_gpu --quick 2>&1 | tail -2
  echo "rc=${PIPESTATUS[0]}"
done
date -u
