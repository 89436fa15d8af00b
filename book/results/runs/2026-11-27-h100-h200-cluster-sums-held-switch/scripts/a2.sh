#!/bin/bash
# Session 20: the held form storing row r and loading row r + 1 vector by vector (inter) against main; test_ch10 of the committed code.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c20/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; timeout 90 /tmp/v/ch10_$v "$@" 2>&1 | grep -E "ch10_|FAIL|rror"; }
for round in 1 2; do for v in main inter; do
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 32 --cols 2097152
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 32 --cols 2097152
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 48 --cols 1572864
done; done > $OUT/perf.txt 2>&1
cat $OUT/perf.txt
(cd /tmp/v && timeout 200 ./test_ch10 2>&1 | tail -6) > $OUT/test_ch10.txt 2>&1
cat $OUT/test_ch10.txt
date -u >> $OUT/gpu.txt
