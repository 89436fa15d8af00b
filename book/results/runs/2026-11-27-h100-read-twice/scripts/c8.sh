#!/bin/bash
# Session 25, call 8: a row read twice (the second time from L2), a standalone check, against
# chapter 09's dispatcher in the same call, bf16.
exec > >(tee $OUT/c8.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for s in "4096 16384" "4096 8192" "8192 15360"; do set -- $s
  echo "== $1 x $2"
  timeout 60 .deps/s25w/twopass $1 $2
  for op in rmsnorm layernorm; do timeout 60 .deps/s25w/ch09 --dtype bf16 --rows $1 --cols $2 --op $op --kernel "ch09_$op" 2>&1 | grep -E "ch09_$op +$op|roof:"; done
done
date -u
