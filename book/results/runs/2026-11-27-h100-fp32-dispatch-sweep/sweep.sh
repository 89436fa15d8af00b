#!/bin/bash
# fp32 RMSNorm and add + RMSNorm: every registered kernel (normlab tour --op) and the
# dispatcher's pick (normlab explain) on a sweep of shapes, to find where chapters 04 and 06
# beat the dispatcher's choice.
exec > >(tee $OUT/c17.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/t && tar -xJf .deps/s26/tool.txz -C /tmp/t
N=/tmp/t/normlab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p $OUT/j
for shape in "16384 4096" "8192 8192" "2048 8192" "4096 2048" "8192 1024" "16384 512" "32768 256" "1024 1024" "4096 12288" "2048 16384" "8192 576" "4096 5000" "32 4096" "1 4096" "64 8192"; do
  set -- $shape
  for op in rmsnorm add_rmsnorm; do
    echo "== $op $1 x $2: $($N explain --op $op --rows $1 --cols $2 --dtype fp32 2>&1 | grep '^kernel:')"
    timeout 60 $N tour --op $op --rows $1 --cols $2 --dtype fp32 --json $OUT/j/$op-$1x$2.json 2>&1 | grep -E '^[01][0-9]  ' | cut -c1-90
  done
done
date -u
cd $OUT && tar -czf j.tgz j
