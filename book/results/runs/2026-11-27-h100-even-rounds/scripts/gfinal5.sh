#!/bin/bash
# The gpu preset in one call (dependencies from .deps/debs, configure, build, every test, pytest), then chapter 08's program from that build at fp32 2048 x 8192 and bf16 4096 x 8192, two rounds.
exec > >(tee $OUT/gall5.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 260 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
date -u
timeout 290 ctest --preset gpu -j 10 > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test|Failed" $OUT/ctest.log | tail -30
date -u
timeout 40 scripts/torch_test build/gpu > $OUT/torch_test.log 2>&1; echo "torch_test rc=$?"; tail -n 2 $OUT/torch_test.log
cp -r build/gpu /tmp/gpu-build 2>/dev/null
date -u
