#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/b1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b && tar -xJf .deps/s23/ch08.txz -C /tmp/b || exit 1
cd /tmp/b
for round in 1 2 3; do
  for c in 0 2 4 8; do
    for op in layernorm_backward rmsnorm_backward; do
      echo "== round $round NL_CLUSTER=$c $op"
      NL_CLUSTER=$c ./ch08_new --op $op --rows 2048 --cols 8192 --dtype fp32 2>&1 | grep -E "roof|%|NL_CLUSTER|FAIL|rror" | head -12
    done
  done
done
date -u
tar -C $OUT -czf $OUT/b1.tgz b1
