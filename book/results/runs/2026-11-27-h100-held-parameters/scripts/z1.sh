#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c19/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; timeout 90 /tmp/v/ch10_$v "$@" 2>&1 | grep -E "ch10_|FAIL|rror"; }
(cd /tmp/v && timeout 200 ./test_ch10 2>&1 | tail -6) > $OUT/test_ch10.txt 2>&1
for round in 1 2; do for v in base held; do
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 32 --cols 2097152
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 32 --cols 2097152
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 64 --cols 1048576
done; done > $OUT/perf.txt 2>&1
for v in held; do for s in "layernorm 64 1048576" "rmsnorm 64 1048576" "layernorm 256 262144" "layernorm 16 4194304"; do set -- $s
  one $v --dtype fp32 --op $1 --rows $2 --cols $3 --kernel ch10_
done; done > $OUT/paths.txt 2>&1
for tool in memcheck racecheck synccheck; do
  echo "== $tool"; timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 /tmp/v/ch10_held --rows 3 --cols 2200000 --op layernorm --kernel whole_gpu --quick 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"
done > $OUT/sanitizers.txt 2>&1
date -u >> $OUT/gpu.txt
cat $OUT/gpu.txt $OUT/test_ch10.txt $OUT/perf.txt $OUT/paths.txt $OUT/sanitizers.txt
