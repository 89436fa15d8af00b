#!/bin/bash
# narrow16x5 in the table: GPU tests, sanitizers, and the chapter program on narrow rows (its sweep
# entries narrow32x3 and narrow16x5 beside the dispatcher, one process each).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s36; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/s36 && tar -xJf .deps/carry12/s36.txz -C /tmp/s36 || exit 1
for t in test_ch09 test_dispatch_run test_ch09_dispatch; do /tmp/s36/$t > $R/$t.txt 2>&1; echo "$t rc=$?" | tee -a $R/tests.txt; tail -2 $R/$t.txt >> $R/tests.txt; done
for tool in memcheck racecheck; do for s in "300 576 bf16" "77 640 fp16" "33 600 bf16"; do
  set -- $s; echo "== $tool $* (narrow16x5 entries)" >> $R/sanitizers.txt
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/s36/ch09_every_width --rows $1 --cols $2 --dtype $3 --kernel narrow16x5 --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^09 " >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
for round in 1 2; do for s in "8192 576 bf16" "8192 576 fp16" "16384 576 bf16" "8192 640 bf16" "8192 520 bf16"; do
  set -- $s; echo "== r$round $*" >> $R/narrow.txt
  /tmp/s36/ch09_every_width --rows $1 --cols $2 --dtype $3 | grep -E "^09 " | grep -E "ch09_[a-z_]+ |narrow32x3 |narrow16x5 " >> $R/narrow.txt
done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s36.tgz s36
