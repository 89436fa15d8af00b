#!/bin/bash
# EXPERIMENT: the pairs kernel's second pass reading row r's stash from shared memory only after
# its group's global loads are issued (s4), and with 6 stash chunks a group (s6), against the
# committed code (base), two rounds alternated.
exec > >(tee $OUT/c16.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/c16 && tar -xJf .deps/s26/g.txz -C /tmp/c16
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "layernorm 2 9437184" "rmsnorm 2 9437184" "layernorm 4 6291456" "layernorm 16 6291456"; do
    set -- $shape
    for b in base s4 s6; do
      echo "== round $round $b $1 $2 x $3"; /tmp/c16/ch10_$b --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|error|FAIL|wrong"
    done
  done
done
date -u
