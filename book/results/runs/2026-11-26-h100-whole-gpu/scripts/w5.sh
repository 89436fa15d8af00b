#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c1/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; timeout 90 /tmp/v/ch10_$v "$@" 2>&1 | grep -E "ch10_|FAIL|rror"; }
# 1. tests
(cd /tmp/v && timeout 300 ./test_ch10 2>&1 | tail -15) > $OUT/test_ch10.txt 2>&1 &
TP=$!
# 3. perf, whole GPU: main's kernel, the experiment, the committed one
wait $TP
for round in 1 2; do for v in base grpx final; do
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 16 --cols 4194304
  one $v --dtype fp32 --kernel whole_gpu --op layernorm --rows 2 --cols 9437184
  one $v --dtype fp32 --kernel whole_gpu --op rmsnorm --rows 32 --cols 2097152
done; done > $OUT/perf.txt 2>&1
# 4. where each path wins, final
for shape in "fp32 layernorm 64 1048576" "fp32 rmsnorm 64 1048576" "fp32 layernorm 32 2097152" "fp32 rmsnorm 32 2097152" "fp32 layernorm 16 4194304" "fp32 rmsnorm 16 4194304" "fp32 layernorm 8 8388608" "fp32 layernorm 2 9437184" "bf16 layernorm 64 1048576" "bf16 rmsnorm 32 2097152" "bf16 rmsnorm 16 4194304" "fp32 add_rmsnorm 16 4194304"; do set -- $shape
  one final --dtype $1 --op $2 --rows $3 --cols $4 --kernel ch10_
done > $OUT/paths.txt 2>&1
# 2. sanitizers of the new path
for tool in memcheck racecheck synccheck; do
  echo "== $tool"; timeout 200 compute-sanitizer --tool $tool --error-exitcode 1 /tmp/v/ch10_final --rows 3 --cols 2200000 --op layernorm --kernel whole_gpu --quick 2>&1 | tail -4; echo "rc=${PIPESTATUS[0]}"
done > $OUT/sanitizers.txt 2>&1
date -u >> $OUT/gpu.txt
cat $OUT/test_ch10.txt; cat $OUT/perf.txt $OUT/paths.txt | grep -v "^$"; cat $OUT/sanitizers.txt
