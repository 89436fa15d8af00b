#!/bin/bash
# The gpu preset, part 1: dependencies from .deps/debs, configure and build (kept in /tmp/gpubuild).
exec > >(tee $OUT/g1.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 520 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; rc=$?
echo "build rc=$rc"; grep -E "error|FAILED" $OUT/build.log | head -20; tail -3 $OUT/build.log
rm -rf /tmp/gpubuild; cp -a build/gpu /tmp/gpubuild
date -u
