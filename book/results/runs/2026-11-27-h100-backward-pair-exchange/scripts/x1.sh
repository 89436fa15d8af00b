#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/x1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b && tar -xJf .deps/s24/ch08exp.txz -C /tmp/b || exit 1
cd /tmp/b
for round in 1 2 3; do
  for e in 0 1 2 3 4; do
    for op in layernorm_backward; do
      echo "== round $round NL_EXP=$e $op"
      NL_EXP=$e ./ch08_exp --op $op --rows 2048 --cols 8192 --dtype fp32 2>&1 | grep -E "roof|%|FAIL|rror" | head -12
    done
  done
done
date -u
tar -C $OUT -czf $OUT/x1.tgz x1
