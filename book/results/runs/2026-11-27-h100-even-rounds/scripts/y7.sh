#!/bin/bash
# Session 18: Nsight Compute on chapter 09's narrow32x3 LayerNorm and RMSNorm at bf16 8192 x 576 (committed code), and both ops' sweep entries once.
exec > >(tee $OUT/y7.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cp .deps/s18/exp/ch09 /tmp/; chmod +x /tmp/ch09
# (timings: see the first call)
for op in layernorm rmsnorm; do echo "== ncu $op"
ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats -k regex:norm_narrow --launch-skip 0 -c 1 /tmp/ch09 --rows 8192 --cols 576 --dtype bf16 --op $op --kernel "${op}@narrow32x3" --quick 2>&1 | grep -v "^==PROF==" | sed -n '/norm_narrow/,$p' | grep -E "norm_narrow|Duration|Stall|stall|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Stall|Block Limit|Grid Size|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Issued Warp|Eligible" | head -60
done
date -u
