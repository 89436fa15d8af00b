#!/bin/bash
# Whole-GPU variants: base, hint (w,b evict_last, y evict_first), ahead (next row copied during the exchange), both.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c1/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; NORMLAB_WG_SAY=1 timeout 60 /tmp/v/ch10_$v --dtype fp32 --kernel whole_gpu "$@" 2>&1 | tail -6; }
for v in base hint ahead both; do one $v --op layernorm --rows 16 --cols 4194304; done > $OUT/w1.txt 2>&1
cat $OUT/w1.txt
for v in base hint ahead both; do
  one $v --op rmsnorm --rows 16 --cols 4194304
  one $v --op layernorm --rows 2 --cols 9437184
  one $v --op rmsnorm --rows 32 --cols 2097152
done > $OUT/w2.txt 2>&1
for v in both ahead hint base; do one $v --op layernorm --rows 16 --cols 4194304; done > $OUT/w3.txt 2>&1
date -u >> $OUT/gpu.txt
tail -c 3000 $OUT/w2.txt; cat $OUT/w3.txt | grep -E "==|whole"
