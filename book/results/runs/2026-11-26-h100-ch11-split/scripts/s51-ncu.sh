#!/bin/bash
# Nsight Compute on chapter 11 at 64 tokens through 576 -> 960: the cluster kernel, and the
# cuBLAS GEMM of the plain path; and the warp-split kernel at 16 tokens.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s51; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/carry15/s50.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
timeout 200 ncu $S --kernel-name regex:fused_kernel --launch-count 1 $P --tokens 64 --k 576 --n 960 --quick --fused-kernel cluster > $R/cluster64.txt 2>&1
timeout 200 ncu $S --kernel-name regex:'nvjet|gemm|sm90_xmma|cutlass' --launch-count 1 $P --tokens 64 --k 576 --n 960 --quick --fused-kernel cluster > $R/gemm64.txt 2>&1
timeout 200 ncu $S --kernel-name regex:fused_warp_split --launch-count 1 $P --tokens 16 --k 576 --n 960 --quick --fused-kernel warp > $R/warp16.txt 2>&1
timeout 200 nsys --version > /dev/null 2>&1 && timeout 200 nsys profile -o $R/p64 --stats=true $P --tokens 64 --k 576 --n 960 --fused-kernel cluster > $R/nsys64.txt 2>&1
date -u >> $R/gpu.txt
rm -f $R/p64.nsys-rep $R/p64.sqlite
tar -C $OUT -czf $OUT/s51.tgz s51
