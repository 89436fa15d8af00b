#!/bin/bash
# Chapter 11: K split over a block's warps and a cluster's blocks (tile columns, warps a block,
# blocks a cluster) against the cluster kernel, one process per shape; test_ch11 under three.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s48; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/carry15/s47.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
set_v() { if [ $1 = cluster ]; then unset NORMLAB_CH11_WARPS; else IFS=, read t w c <<< "$1"; export NORMLAB_CH11_WARPS=1 NORMLAB_CH11_TILE=$t NORMLAB_CH11_NWARPS=$w NORMLAB_CH11_CLUSTER=$c; fi; }
for v in 16,4,4 32,8,4 64,4,8 16,8,2; do set_v $v
  timeout 120 /tmp/b/tests/test_ch11 > $R/test-$v.txt 2>&1; echo "test_ch11 $v rc=$?" >> $R/tests.txt; tail -2 $R/test-$v.txt >> $R/tests.txt
done
for s in "576 960" "2048 2560"; do for t in 1 16 64; do
  set -- $s
  for v in cluster 16,8,1 16,4,1 16,4,2 16,4,4 16,8,4 16,4,8 32,4,2 32,4,4 32,8,4 64,4,8 64,8,4; do set_v $v
    echo "== $v" >> $R/table.txt
    timeout 60 $P --tokens $t --k $1 --n $2 2>&1 | grep -E "^ *[0-9]+ ->|FAIL" >> $R/table.txt
  done
done; done
set_v 16,4,4
for s in "--tokens 3 --k 1000 --n 1001" "--tokens 64 --k 576 --n 960"; do
  for tool in memcheck racecheck synccheck; do echo "== $tool $s" >> $R/sanitizers.txt
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $P $s --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s48.tgz s48
