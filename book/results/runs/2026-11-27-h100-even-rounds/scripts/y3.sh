#!/bin/bash
# Session 18: ncu durations (clocks and caches as they run) of chapter 08's kernels at fp32 2048 x 8192, both ops, the even-rounds build.
exec > >(tee $OUT/y3.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cp .deps/s18/exp/ch08_even /tmp/; chmod +x /tmp/ch08_even
for op in layernorm_backward rmsnorm_backward; do
ncu --clock-control none --cache-control none -k regex:"backward_rows|sum_partials" -c 14 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sector_hit_rate.pct /tmp/ch08_even --rows 2048 --cols 8192 --dtype fp32 --op $op --kernel ch08_$op 2>&1 | grep -E "^  [a-z]|gpu__time|dram__|lts__" | sed -E 's/\(const normlab[^)]*\)//; s/, Context.*//'
done
date -u
