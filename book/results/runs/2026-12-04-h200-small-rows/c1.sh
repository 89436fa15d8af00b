#!/bin/bash
# Call C1: the small-rows experiment (small.py) with the CPU-built small.so and the CPU build's
# libnormlab_capi.so (sm_90, commit e7d6683), carried in .deps/small.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
exec > >(tee $L/c1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
xz -dc .deps/small/capi.so.xz > /tmp/libnormlab_capi.so
export NORMLAB_CAPI=/tmp/libnormlab_capi.so PYTHONPATH=$PWD/python LD_LIBRARY_PATH=/usr/local/cuda/lib64
python3 book/results/runs/2026-12-04-h200-small-rows/small.py .deps/small/small.so $L/small.json
echo "done at $(( $(date +%s) - s ))s"
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
