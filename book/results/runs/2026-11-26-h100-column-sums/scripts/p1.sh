#!/bin/bash
# Baseline profile of chapter 08's fp32 2048 x 8192 backward: every kernel's duration and DRAM bytes; three timed rounds.
exec > >(tee $OUT/p1.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; which nsys ncu
xz -dc .deps/s16/ch08-base.xz > /tmp/ch08-base && chmod +x /tmp/ch08-base
for i in 1 2 3; do /tmp/ch08-base --rows 2048 --cols 8192 --dtype fp32 --kernel backward | grep ch08_; done
for op in rmsnorm_backward layernorm_backward; do
ncu --cache-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size \
  /tmp/ch08-base --rows 2048 --cols 8192 --dtype fp32 --op $op --kernel ch08_${op} --quick > $OUT/ncu-$op.txt 2>&1
grep -E "void |duration|bytes|warps_active|registers|grid_size" $OUT/ncu-$op.txt | grep -v atomic | head -40
done
if which nsys; then nsys profile -o /tmp/p1 --force-overwrite true /tmp/ch08-base --rows 2048 --cols 8192 --dtype fp32 --kernel layernorm_backward > /dev/null 2>&1; nsys stats -r cuda_gpu_trace -f csv /tmp/p1.nsys-rep > $OUT/trace.csv 2>&1; tail -30 $OUT/trace.csv; fi
date -u
