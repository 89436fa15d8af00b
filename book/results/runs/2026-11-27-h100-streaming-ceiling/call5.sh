#!/bin/bash
# Chapter 10's cluster kernel at bf16 512 x 65536, four launch shapes by NL_EXP, alternated, two
# rounds: 0 committed (62 clusters of 8 x 256, 4 vectors, 3 stages, looping over rows); 1 a
# cluster a row (512 clusters), one stage of shared memory; 2 a cluster a row of 4 x 256, 8
# vectors, one stage; 3 clusters of 4 x 256, 8 vectors, 3 stages, looping over rows.
exec > >(tee $OUT/c5.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for e in 0 1 2 3; do
    for op in rmsnorm add_rmsnorm layernorm; do
      echo "== round $round NL_EXP=$e $op"
      NL_EXP=$e .deps/s26/ch10_exp --op $op --rows 512 --cols 65536 --dtype bf16 --kernel cluster 2>&1 | grep -E "cluster|refuse|error|FAIL"
    done
  done
done
date -u
