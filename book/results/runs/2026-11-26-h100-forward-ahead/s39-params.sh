#!/bin/bash
# Few rows: block1 against block1_parameters_first (weight and bias loaded with the row), the
# chapter program's sweep entries beside the dispatcher, three rounds; GPU test and sanitizers.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s39; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/s39 && tar -xJf .deps/carry13/s39.txz -C /tmp/s39 || exit 1
B=/tmp/s39/chapters/09-every-width/ch09_every_width
for round in 1 2 3; do for s in "1 4096 bf16" "32 4096 bf16" "8 8192 bf16" "64 2048 bf16" "1 4096 fp32" "16 6000 fp16"; do
  set -- $s; echo "== r$round $*" >> $R/few.txt
  $B --rows $1 --cols $2 --dtype $3 | grep -E "^09 " | grep -E "ch09_[a-z_]+ |block1" >> $R/few.txt
done; done
for tool in memcheck racecheck; do for s in "5 4096 bf16" "7 1000 fp32" "3 8000 fp16"; do
  set -- $s; echo "== $tool $* (block1_parameters_first)" >> $R/sanitizers.txt
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B --rows $1 --cols $2 --dtype $3 --kernel parameters_first --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^09 " >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
timeout 240 /tmp/s39/tests/test_ch09 > $R/test_ch09.txt 2>&1; echo "test_ch09 rc=$?" >> $R/tests.txt; tail -3 $R/test_ch09.txt >> $R/tests.txt
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s39.tgz s39
