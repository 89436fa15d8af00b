#!/bin/bash
# Session 17: Nsight Compute on chapter 09's dispatched LayerNorm and RMSNorm at bf16 4096 x 8192 (block4_256x3): is the row path issue-bound?
exec > >(tee $OUT/x4.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/ch09b; cp .deps/s17/exp/ch09_base $B; chmod +x $B
for op in layernorm rmsnorm; do
ncu --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \
  -k regex:norm_block --launch-count 1 $B --rows 4096 --cols 8192 --dtype bf16 --op $op --kernel ch09_$op --quick > $OUT/ncu-$op.txt 2>&1
grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit|Issue Slots|Issued Warp|No Eligible|Active Warps|Eligible Warps|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Stall|Compute \(SM\)|Block Limit" $OUT/ncu-$op.txt | head -40
done
date -u
