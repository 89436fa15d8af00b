#!/bin/bash
# The gpu preset in one call: dependencies from .deps/debs, configure, build, every test; then the pytest suite.
exec > >(tee $OUT/gall.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 280 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
timeout 270 ctest --preset gpu -j 8 > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test" $OUT/ctest.log | tail -30
date -u
timeout 100 scripts/torch_test build/gpu > $OUT/torch_test.log 2>&1; echo "torch_test rc=$?"; tail -n 6 $OUT/torch_test.log
date -u
