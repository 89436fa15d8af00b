#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c19/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; timeout 90 /tmp/v/ch10_$v "$@" 2>&1 | grep -E "ch10_|FAIL|rror"; }
for round in 1 2; do for v in held spread early two both; do
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 32 --cols 2097152
done; done > $OUT/variants.txt 2>&1
for round in 1 2; do for v in base held; do
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 48 --cols 1572864
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 48 --cols 1572864
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 40 --cols 1835008
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 40 --cols 1835008
done; done > $OUT/threshold.txt 2>&1
date -u >> $OUT/gpu.txt
cat $OUT/gpu.txt; grep -v "^$" $OUT/variants.txt $OUT/threshold.txt | sed 's/  */ /g'
