#!/bin/bash
# Chapter 11: K split over a block's warps (each with its own ring of slots) and a cluster's
# blocks, configurations A..F (fused.cu's launch_warps_by_tile) x blocks a cluster, against
# the cluster kernel; one process per shape.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s49; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/carry15/s47.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
set_v() { if [ $1 = old ]; then unset NORMLAB_CH11_WARPS; else export NORMLAB_CH11_WARPS=1 NORMLAB_CH11_CONFIG=${1:0:1} NORMLAB_CH11_CLUSTER=${1:1}; fi; }
for v in B4 D8; do set_v $v
  timeout 120 /tmp/b/tests/test_ch11 > $R/test-$v.txt 2>&1; echo "test_ch11 $v rc=$?" >> $R/tests.txt; tail -2 $R/test-$v.txt >> $R/tests.txt
done
for round in 1 2; do
for s in "576 960" "2048 2560"; do for tok in 1 16 64; do
  set -- $s
  for v in old A1 F1 A2 B2 B4 C4 C8 D4 D8; do set_v $v
    echo -n "$v " >> $R/table.txt
    timeout 60 $P --tokens $tok --k $1 --n $2 2>&1 | grep -E "^ *[0-9]+ ->|FAIL" >> $R/table.txt
  done
done; done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s49.tgz s49
