#!/bin/bash
# s60: chapter 10's cluster kernel variants (base, held weight, 4x512 blocks, both), 3 rounds
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/v1.txz -C /tmp/v || exit 1
mkdir -p $OUT/v
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/v/gpu.txt
for round in 1 2 3; do
  for s in "512 65536 bf16" "1024 32768 bf16" "128 131072 bf16" "512 65536 fp16"; do
    set -- $s
    for v in base held heldwide wide; do
      echo "== round $round $v $s" >> $OUT/v/runs.txt
      /tmp/v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster 2>&1 | grep -v "^$" >> $OUT/v/runs.txt
    done
  done
done
date -u >> $OUT/v/gpu.txt
tar -C $OUT -czf $OUT/v.tgz v && rm -rf $OUT/v
