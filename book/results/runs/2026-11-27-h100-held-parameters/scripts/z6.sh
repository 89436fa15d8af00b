#!/bin/bash
# Nsight Compute: DRAM bytes and L2 hit rate of the held form at fp32 16 x 4194304 (LayerNorm, RMSNorm).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c19/v.txz -C /tmp/v
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum
for op in layernorm rmsnorm; do
timeout 150 ncu --metrics $M -k regex:norm_whole_gpu_held -c 1 /tmp/v/ch10_final --dtype fp32 --op $op --rows 16 --cols 4194304 --kernel whole_gpu --quick > $OUT/ncu-$op.txt 2>&1
done
grep -E "Profiling|dram__|lts__|gpu__time" $OUT/ncu-*.txt
