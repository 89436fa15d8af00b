#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/y1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b && tar -xJf .deps/s24/ch10exp.txz -C /tmp/b || exit 1
cd /tmp/b
for round in 1 2; do
  for nb in 8 4 16; do
    for op in rmsnorm layernorm add_rmsnorm; do
      echo "== round $round NL_BLOCKS=$nb $op 512x65536"
      NL_BLOCKS=$nb ./ch10_exp --op $op --rows 512 --cols 65536 --dtype bf16 --kernel _cluster 2>&1 | grep -E "resident|%|FAIL|rror" | head -6
    done
  done
done
for round in 1 2; do
  for nb in 4 2 8; do
    echo "== round $round NL_BLOCKS=$nb rmsnorm 1024x32768"
    NL_BLOCKS=$nb ./ch10_exp --op rmsnorm --rows 1024 --cols 32768 --dtype bf16 --kernel _cluster 2>&1 | grep -E "resident|%|FAIL|rror" | head -6
  done
done
date -u
tar -C $OUT -czf $OUT/y1.tgz y1
