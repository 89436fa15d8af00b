#!/bin/bash
# Conversions a word at a time (to_floats / from_floats), old build against new, interleaved; GPU tests.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s32; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/s32 && tar -xJf .deps/carry12/s32.txz -C /tmp/s32 || exit 1
for t in ${TESTS:-test_ch07 test_ch09 test_ch10 test_ch08 test_dispatch_run}; do
  [ -x /tmp/s32/new/$t ] || continue
  /tmp/s32/new/$t > $R/$t.txt 2>&1; echo "$t rc=$?" | tee -a $R/tests.txt; tail -3 $R/$t.txt >> $R/tests.txt
done
for s in "16384 4096 bf16" "4096 8192 bf16" "2048 8192 fp32" "16384 4096 fp16" "8192 576 bf16" "4096 5000 bf16"; do
  set -- $s
  for round in 1 2; do for v in old new; do
    echo "== $v round $round $*" >> $R/fwd.txt
    /tmp/s32/$v/normlab tour --rows $1 --cols $2 --dtype $3 --kernel ${KERNEL:-ch09_} | grep -E "^(0|1)[0-9] " >> $R/fwd.txt 2>&1
  done; done
done
for s in "16384 4096 bf16" "2048 8192 fp32" "8192 576 bf16"; do
  set -- $s
  for v in old new; do
    echo "== $v $*" >> $R/bwd.txt
    /tmp/s32/$v/normlab tour --rows $1 --cols $2 --dtype $3 --kernel ch08_ | grep -E "^(0|1)[0-9] " >> $R/bwd.txt 2>&1
  done
done
for v in old new; do
  echo "== $v 512 65536 bf16" >> $R/ch10.txt
  /tmp/s32/$v/normlab tour --rows 512 --cols 65536 --dtype bf16 --kernel ch10_ | grep -E "^(0|1)[0-9] " >> $R/ch10.txt 2>&1
done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s32.tgz s32
