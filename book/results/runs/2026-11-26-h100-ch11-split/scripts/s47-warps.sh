#!/bin/bash
# Chapter 11: the fused kernel with K split over a block's warps (tiles of 16, 32, 64 columns)
# against the cluster kernel, in one process per shape; test_ch11 under each.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s47; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/carry15/s47.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
for v in cluster 16 32 64; do
  if [ $v = cluster ]; then unset NORMLAB_CH11_WARPS; else export NORMLAB_CH11_WARPS=1 NORMLAB_CH11_TILE=$v; fi
  timeout 120 /tmp/b/tests/test_ch11 > $R/test-$v.txt 2>&1; echo "test_ch11 $v rc=$?" >> $R/tests.txt; tail -2 $R/test-$v.txt >> $R/tests.txt
done
for round in 1 2; do
for s in "576 960" "2048 2560" "4096 6144"; do for t in 1 16 64; do
  set -- $s
  for v in cluster 16 32 64; do
    if [ $v = cluster ]; then unset NORMLAB_CH11_WARPS; else export NORMLAB_CH11_WARPS=1 NORMLAB_CH11_TILE=$v; fi
    echo "== r$round $v" >> $R/table.txt
    timeout 60 $P --tokens $t --k $1 --n $2 2>&1 | grep -E "^ *[0-9]+ ->|FAIL|floor" >> $R/table.txt
  done
done; done; done
export NORMLAB_CH11_WARPS=1 NORMLAB_CH11_TILE=32
for s in "--tokens 3 --k 1000 --n 1001" "--tokens 64 --k 576 --n 960" "--tokens 17 --k 4100 --n 72"; do
  for tool in memcheck racecheck synccheck; do echo "== $tool $s" >> $R/sanitizers.txt
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $P $s --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s47.tgz s47
