#!/bin/bash
# The gpu preset in one call: dependencies from .deps/debs, configure, build, every test; the
# build is kept in /tmp/gpu for the peer comparison of the next call.
exec > >(tee $OUT/gall.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1 2>/dev/null
mkdir -p /tmp/stash && tar -xf .deps/s25p/small.tar -C /tmp/stash && ls /tmp/stash/*
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 280 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
rm -rf /tmp/gpu && mkdir -p /tmp/gpu/tools /tmp/gpu/python && cp build/gpu/tools/normlab /tmp/gpu/tools/ && cp build/gpu/python/libnormlab_capi.so /tmp/gpu/python/
timeout 300 ctest --preset gpu -j 8 > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test|Failed|Skipped" $OUT/ctest.log | tail -30
date -u
cd $OUT && tar -czf gall.tgz gall.log deps.log configure.log build.log ctest.log && rm -f deps.log configure.log build.log
