#!/bin/bash
# Session 25, call 5: Nsight Compute on chapter 09's narrow kernels at bf16 8192 x 576:
# LayerNorm and RMSNorm on narrow32x3, RMSNorm on narrow16x5 (main's code, s24 build).
exec > >(tee $OUT/c5.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/s25 && tar -xJf .deps/s24/ch09cur.txz -C /tmp/s25 || exit 1
P=/tmp/s25/$(tar -tJf .deps/s24/ch09cur.txz | head -1)
S="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats"
for k in "layernorm @narrow32x3" "rmsnorm @narrow32x3" "rmsnorm @narrow16x5"; do set -- $k
  echo "=== $1 $2"; timeout 120 ncu $S -k regex:norm_narrow -c 1 $P --dtype bf16 --rows 8192 --cols 576 --op $1 --kernel "$2" --quick 2>&1 | grep -vE "^==PROF==|^    -+|^\s*$" | head -150
done
date -u
