#!/bin/bash
# LayerNorm statistics in one reduction on balanced rows (balanced_statistics): old (s39 build,
# main's kernels) against new, alternated, two rounds; the new build's GPU test and sanitizers.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s45; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/old /tmp/new && tar -xJf .deps/carry13/s39.txz -C /tmp/old && tar -xJf .deps/carry14/s45.txz -C /tmp/new || exit 1
P=chapters/09-every-width/ch09_every_width
for round in 1 2; do for s in "16384 4096 bf16" "4096 8192 bf16" "16384 4096 fp16" "32768 2048 bf16" "16384 5120 bf16" "4096 4096 fp32" "1 4096 bf16"; do
  set -- $s
  for b in old new; do echo "== r$round $b $*" >> $R/balanced.txt
  /tmp/$b/$P --rows $1 --cols $2 --dtype $3 --op layernorm | grep -E "^09 " >> $R/balanced.txt
  /tmp/$b/$P --rows $1 --cols $2 --dtype $3 --op add_layernorm | grep -E "^09 " >> $R/balanced.txt; done
done; done
timeout 200 /tmp/new/tests/test_ch09 > $R/test_ch09.txt 2>&1; echo "test_ch09 rc=$?" >> $R/tests.txt; tail -3 $R/test_ch09.txt >> $R/tests.txt
for tool in memcheck racecheck; do for s in "300 4096 bf16" "200 2048 fp16" "33 4096 fp32"; do
  set -- $s; echo "== $tool $*" >> $R/sanitizers.txt
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/new/$P --rows $1 --cols $2 --dtype $3 --op layernorm --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s45.tgz s45
