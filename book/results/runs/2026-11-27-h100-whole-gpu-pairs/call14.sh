#!/bin/bash
# compare_peers.py on fp32 LayerNorm 2 x 9437184 with the pairs kernel (no peers installed).
exec > >(tee $OUT/c14.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b/tools /tmp/b/python && tar -xJf .deps/s26/nl.txz -C /tmp/b && mv /tmp/b/normlab /tmp/b/tools/ && mv /tmp/b/libnormlab_capi.so /tmp/b/python/
mkdir -p $OUT/r
timeout 300 python3 bench/compare_peers.py --build /tmp/b --out $OUT/r --only "2 x 9437184" > $OUT/q.log 2>&1; echo "rc=$?"
grep -E "timing|copy of the same|normlab|torch" $OUT/q.log
date -u
