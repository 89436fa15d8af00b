#!/bin/bash
# Chapter 10's cluster kernel rebuilt (new) against main (base): the tour of every kernel at the
# wide shapes, the chapter's GPU test, and compute-sanitizer on the cluster kernel.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/f && tar -xJf .deps/carry9/f.txz -C /tmp/f || exit 1
mkdir -p $OUT/f
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/f/gpu.txt
/tmp/f/new/test_ch10 > $OUT/f/test_ch10.txt 2>&1; echo "test_ch10 rc=$?" >> $OUT/f/test_ch10.txt
for s in "512 65536 bf16" "1024 32768 bf16" "256 65536 fp32" "128 131072 bf16"; do
  set -- $s
  for v in base new; do
    /tmp/f/$v/normlab tour --rows $1 --cols $2 --dtype $3 --kernel ch07 --json $OUT/f/$v-ch07-$1x$2-$3.json > $OUT/f/$v-ch07-$1x$2-$3.txt 2>&1
    /tmp/f/$v/normlab tour --rows $1 --cols $2 --dtype $3 --kernel ch10_ > $OUT/f/$v-ch10-$1x$2-$3.txt 2>&1
  done
done
for tool in memcheck racecheck synccheck; do
  for s in "300 20000 bf16 cluster" "61 16389 fp16 ch10_" "40 65536 fp32 cluster"; do
    set -- $s
    echo "== $tool $s" >> $OUT/f/sanitizers.txt
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/f/new/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel $4 --quick >> $OUT/f/sanitizers.txt 2>&1; echo "rc=$?" >> $OUT/f/sanitizers.txt
  done
done
date -u >> $OUT/f/gpu.txt
tar -C $OUT -czf $OUT/f.tgz f && rm -rf $OUT/f
