#!/bin/bash
# EXPERIMENT: chapter 10's lean whole-GPU kernel against rows in pairs (NL_EXP=4), fp32, two
# rounds alternated; then memcheck and racecheck of the pairs on a small odd-rowed case.
exec > >(tee $OUT/c7.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=.deps/s26/ch10_exp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "2 9437184" "3 9437184" "4 6291456" "2 5000000"; do
    set -- $shape
    for op in layernorm rmsnorm; do
      for e in 0 4; do
        echo "== round $round NL_EXP=$e $op $1 x $2"
        NL_EXP=$e $B --op $op --rows $1 --cols $2 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|refuse|error|FAIL|wrong"
      done
    done
  done
done
date -u
for tool in memcheck racecheck; do
  echo "== $tool pairs layernorm 3 x 5000000"
  NL_EXP=4 timeout 200 compute-sanitizer --tool $tool --error-exitcode 3 $B --op layernorm --rows 3 --cols 5000000 --dtype fp32 --kernel whole_gpu --quick 2>&1 | tail -4
  echo "rc=${PIPESTATUS[0]}"
done
date -u
