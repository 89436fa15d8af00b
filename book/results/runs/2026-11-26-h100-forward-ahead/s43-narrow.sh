#!/bin/bash
# Narrow LayerNorm: narrow16x5_3 (16 lanes of 5 chunks, 3 blocks an SM) and narrow8x9_2 beside the
# table's narrow configurations and block1, two rounds; GPU test and sanitizers on the new entries.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s43; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/s43 && tar -xJf .deps/carry14/s43.txz -C /tmp/s43 || exit 1
B=/tmp/s43/chapters/09-every-width/ch09_every_width
for round in 1 2; do for s in "8192 576 bf16" "8192 576 fp16" "16384 576 bf16" "8192 640 bf16" "8192 512 bf16"; do
  set -- $s; echo "== r$round $*" >> $R/narrow.txt
  $B --rows $1 --cols $2 --dtype $3 | grep -E "^09 " >> $R/narrow.txt
done; done
timeout 200 /tmp/s43/tests/test_ch09 > $R/test_ch09.txt 2>&1; echo "test_ch09 rc=$?" >> $R/tests.txt; tail -3 $R/test_ch09.txt >> $R/tests.txt
for k in x5_3 x9_2; do for tool in memcheck racecheck; do for s in "300 576 bf16" "77 520 fp16"; do
  set -- $s; echo "== $tool $k $*" >> $R/sanitizers.txt
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B --rows $1 --cols $2 --dtype $3 --kernel $k --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s43.tgz s43
