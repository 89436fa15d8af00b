#!/bin/bash
# Every chunk normalised before any is stored: old (s39 build, main's kernels) against
# new, alternated, two rounds; the new build's GPU test and sanitizers.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s42; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/old /tmp/new && tar -xJf .deps/carry13/s39.txz -C /tmp/old && tar -xJf .deps/carry14/s42.txz -C /tmp/new || exit 1
P=chapters/09-every-width/ch09_every_width
for round in 1 2; do for s in "16384 4096 bf16" "4096 8192 bf16" "8192 576 bf16" "2048 8192 fp32" "8192 576 fp16" "1 4096 bf16" "16384 4096 fp16" "32 4096 bf16"; do
  set -- $s
  for b in old new; do echo "== r$round $b $*" >> $R/stores.txt
  /tmp/$b/$P --rows $1 --cols $2 --dtype $3 | grep -E "^09 " | grep -E "ch09_[a-z_]+ |block4_128x6 |block4_256x3 |narrow32x3 |narrow16x5 |block1 " >> $R/stores.txt; done
done; done
timeout 200 /tmp/new/tests/test_ch09 > $R/test_ch09.txt 2>&1; echo "test_ch09 rc=$?" >> $R/tests.txt; tail -3 $R/test_ch09.txt >> $R/tests.txt
for tool in memcheck racecheck; do for s in "300 576 bf16" "200 4096 fp16" "33 1000 fp32"; do
  set -- $s; echo "== $tool $*" >> $R/sanitizers.txt
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/new/$P --rows $1 --cols $2 --dtype $3 --op layernorm --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s42.tgz s42
