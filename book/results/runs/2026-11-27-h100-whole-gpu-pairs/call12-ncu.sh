#!/bin/bash
# Nsight Compute on the pairs kernel and the lean kernel at fp32 2 x 9437184 (one launch each):
# DRAM bytes, L2 hit rate, throughputs.
exec > >(tee $OUT/c12.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/c10 && tar -xJf .deps/s26/bins.txz -C /tmp/c10
OLD=.deps/s26/ch10_exp; NEW=/tmp/c10/ch10_new
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
for op in layernorm rmsnorm; do
  echo "== pairs $op 2 x 9437184"
  ncu --metrics $M -k regex:whole_gpu -c 1 $NEW --op $op --rows 2 --cols 9437184 --dtype fp32 --kernel whole_gpu --quick 2>&1 | grep -vE "^==PROF==|^ch |^10 " | tail -14
  echo "== lean $op 2 x 9437184"
  NL_EXP=0 ncu --metrics $M -k regex:whole_gpu -c 1 $OLD --op $op --rows 2 --cols 9437184 --dtype fp32 --kernel whole_gpu --quick 2>&1 | grep -vE "^==PROF==|^ch |^10 " | tail -14
done
date -u
