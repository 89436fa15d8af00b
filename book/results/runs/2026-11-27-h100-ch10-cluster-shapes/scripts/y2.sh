#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/y2; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b && tar -xJf .deps/s24/ch10exp.txz -C /tmp/b || exit 1
cd /tmp/b
run() { echo "== $*"; env $1 ./ch10_exp --op $2 --rows $3 --cols $4 --dtype $5 --kernel _cluster 2>&1 | grep -E "resident|%|FAIL|rror" | grep -v "^ch " | head -4; }
for round in 1 2 3; do
  for op in rmsnorm layernorm; do
    run NL_X=0 $op 512 65536 bf16
    run NL_BLOCKS=2 $op 512 65536 bf16
  done
done
for round in 1 2; do
  run NL_X=0 rmsnorm 512 65536 fp16
  run NL_BLOCKS=2 rmsnorm 512 65536 fp16
  for nb in NL_X=0 NL_BLOCKS=2 NL_BLOCKS=1; do run $nb rmsnorm 1024 32768 bf16; run $nb layernorm 1024 32768 bf16; done
  for nb in NL_X=0 NL_BLOCKS=4; do run $nb rmsnorm 128 131072 bf16; run $nb layernorm 128 131072 bf16; done
  for nb in NL_X=0 NL_BLOCKS=2; do run $nb rmsnorm 256 65536 fp32; done
done
date -u
tar -C $OUT -czf $OUT/y2.tgz y2
