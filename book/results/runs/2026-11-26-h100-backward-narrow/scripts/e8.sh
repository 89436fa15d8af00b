#!/bin/bash
# Nsight Compute of chapter 09's forward kernels where normlab trails the peers most.
exec > >(tee $OUT/e8.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
xz -dc .deps/e8/ch09.xz > /tmp/ch09 && chmod +x /tmp/ch09
/tmp/ch09 --rows 4096 --cols 8192 --dtype bf16 --op layernorm 2>&1 | grep -E "^09|roof"
N=(ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters --section ComputeWorkloadAnalysis -k "regex:norm_block|norm_narrow" --launch-skip 3 --launch-count 1)
for s in "4096 8192 layernorm" "8192 576 layernorm" "4096 8192 rmsnorm"; do set -- $s
  "${N[@]}" /tmp/ch09 --rows $1 --cols $2 --dtype bf16 --op $3 --kernel ch09_$3 > $OUT/ncu-$3-$1x$2.txt 2>&1; echo "$s rc=$?"
  grep -E "^  void|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Issued Warp Per|No Eligible|Warp Cycles Per Issued|excessive|Block Limit (Reg|Shared|Warps)|Theoretical Occ" $OUT/ncu-$3-$1x$2.txt | cut -c1-160
done
date -u
