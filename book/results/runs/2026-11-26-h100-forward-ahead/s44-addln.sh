#!/bin/bash
# add + LayerNorm of 65 to 96 chunks to block1: the dispatcher beside narrow32x3 and block1,
# two rounds; GPU tests of chapter 09 and of the dispatcher.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s44; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/s44 && tar -xJf .deps/carry14/s44.txz -C /tmp/s44 || exit 1
B=/tmp/s44/chapters/09-every-width/ch09_every_width
for round in 1 2; do for s in "8192 576 bf16" "8192 576 fp16" "16384 576 bf16" "8192 640 bf16" "8192 768 bf16" "8192 520 bf16" "8192 288 fp32" "32 576 bf16"; do
  set -- $s; echo "== r$round $*" >> $R/addln.txt
  $B --rows $1 --cols $2 --dtype $3 --op add_layernorm | grep -E "^09 " >> $R/addln.txt
done; done
for t in test_ch09 test_dispatch_run; do timeout 200 /tmp/s44/tests/$t > $R/$t.txt 2>&1; echo "$t rc=$?" >> $R/tests.txt; tail -2 $R/$t.txt >> $R/tests.txt; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s44.tgz s44
