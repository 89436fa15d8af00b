#!/bin/bash
# The gpu preset in one call: dependencies from .deps/debs, configure, build, every test.
exec > >(tee $OUT/gall.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 300 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
date -u
timeout 260 ctest --preset gpu -j 8 > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test|Skipped" $OUT/ctest.log | tail -30
date -u
