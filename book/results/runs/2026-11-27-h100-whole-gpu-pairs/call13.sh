#!/bin/bash
# EXPERIMENT: the pairs kernel reading row r + 1 last chunk first in its first pass (rev) against
# the committed pairs kernel (new), two rounds alternated; Nsight Compute's DRAM bytes of rev.
exec > >(tee $OUT/c13.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/c10 && tar -xJf .deps/s26/bins.txz -C /tmp/c10 && tar -xJf .deps/s26/rev.txz -C /tmp/c10
NEW=/tmp/c10/ch10_new; REV=/tmp/c10/ch10_rev
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "layernorm 2 9437184" "rmsnorm 2 9437184" "layernorm 4 6291456" "layernorm 16 6291456"; do
    set -- $shape
    for b in NEW REV; do
      echo "== round $round $b $1 $2 x $3"; ${!b} --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|error|FAIL|wrong"
    done
  done
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed
echo "== ncu rev layernorm 2 x 9437184"
ncu --metrics $M -k regex:whole_gpu -c 1 $REV --op layernorm --rows 2 --cols 9437184 --dtype fp32 --kernel whole_gpu --quick 2>&1 | grep -E "dram|gpu__|lts"
date -u
