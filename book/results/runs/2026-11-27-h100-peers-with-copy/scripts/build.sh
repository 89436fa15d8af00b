#!/bin/bash
# The peers' small wheels into /tmp/stash beside the parts; the gpu preset's normlab tool and
# PyTorch library built and kept in /tmp/gpu for the comparison of the next call.
exec > >(tee $OUT/build-call.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/stash && tar -xf .deps/s27/small.tar -C /tmp/stash && ls /tmp/stash/*
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 400 cmake --build --preset gpu -j 16 --target normlab normlab_capi > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
rm -rf /tmp/gpu && mkdir -p /tmp/gpu/tools /tmp/gpu/python && cp build/gpu/tools/normlab /tmp/gpu/tools/ && cp build/gpu/python/libnormlab_capi.so /tmp/gpu/python/
OUTP=$(scripts/peer-wheels --install /tmp/stash/peers-1 /tmp/stash/peers-2 /tmp/stash/peers-3 /tmp/peers) || exit 1; echo "$OUTP" | tail -1 > /tmp/peers.env; cat /tmp/peers.env
date -u
