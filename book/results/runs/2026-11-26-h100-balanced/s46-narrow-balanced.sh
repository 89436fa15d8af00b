#!/bin/bash
# LayerNorm statistics in one group reduction on balanced narrow rows: old (the block-only build,
# 673abed) against new, alternated, two rounds; the new build's GPU test and sanitizers.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s46; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/old /tmp/new && tar -xJf .deps/carry13/s45.txz -C /tmp/old && tar -xJf .deps/carry14/s46.txz -C /tmp/new || exit 1
P=chapters/09-every-width/ch09_every_width
for round in 1 2; do for s in "8192 1024 bf16" "8192 512 bf16" "8192 768 bf16" "8192 1024 fp32" "65536 128 bf16" "32768 1024 fp16"; do
  set -- $s
  for b in old new; do echo "== r$round $b $*" >> $R/narrow-balanced.txt
  /tmp/$b/$P --rows $1 --cols $2 --dtype $3 --op layernorm | grep -E "^09 " >> $R/narrow-balanced.txt; done
done; done
timeout 200 /tmp/new/tests/test_ch09 > $R/test_ch09.txt 2>&1; echo "test_ch09 rc=$?" >> $R/tests.txt; tail -3 $R/test_ch09.txt >> $R/tests.txt
for tool in memcheck racecheck; do for s in "300 1024 bf16" "77 512 fp16" "100 1024 fp32"; do
  set -- $s; echo "== $tool $*" >> $R/sanitizers.txt
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/new/$P --rows $1 --cols $2 --dtype $3 --op layernorm --kernel narrow --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s46.tgz s46
