#!/bin/bash
# Forward rows loaded ahead (block*_ahead): GPU tests, sanitizers, and the chapter program's
# sweep entries beside the one-row-a-block configurations, one process per shape, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s38; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/s38 && tar -xJf .deps/carry13/s37.txz -C /tmp/s38 || exit 1
B=/tmp/s38/chapters/09-every-width/ch09_every_width
for round in 1 2; do for s in "16384 4096 bf16" "4096 8192 bf16" "16384 4096 fp16" "2048 8192 fp32" "32768 2048 bf16" "8192 1024 bf16" "65536 1024 bf16"; do
  set -- $s; echo "== r$round $*" >> $R/ahead.txt
  $B --rows $1 --cols $2 --dtype $3 | grep -E "^09 " | grep -E "ch09_[a-z_]+ |block" >> $R/ahead.txt
done; done
timeout 240 /tmp/s38/tests/test_ch09 > $R/test_ch09.txt 2>&1; echo "test_ch09 rc=$?" >> $R/tests.txt; tail -3 $R/test_ch09.txt >> $R/tests.txt
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s38.tgz s38
