#!/bin/bash
# The gpu preset (dependencies, configure, build) and its tests of chapter 10 (ctest -R ch10), then pytest: after the held whole-GPU form.
exec > >(tee $OUT/gall7.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 250 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
date -u
timeout 200 ctest --preset gpu -j 10 -R "ch10" > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test|Failed|Skipped" $OUT/ctest.log | tail -30
date -u
timeout 40 scripts/torch_test build/gpu > $OUT/torch_test.log 2>&1; echo "torch_test rc=$?"; tail -n 2 $OUT/torch_test.log
date -u
