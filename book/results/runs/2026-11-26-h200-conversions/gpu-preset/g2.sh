#!/bin/bash
# The gpu preset, part 2: finish the build kept in /tmp/gpubuild, every test, and chapter 07 / 09
# tours against main's normlab (base).
exec > >(tee $OUT/g2.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > /dev/null 2>&1
rm -rf build/gpu; cp -a /tmp/gpubuild build/gpu
cmake --build --preset gpu -j 16 > $OUT/build2.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build2.log
cp -a build/gpu /tmp/gpubuild2
timeout 400 ctest --preset gpu -j 8 > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test" $OUT/ctest.log | tail -30
date -u
