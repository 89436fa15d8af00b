#!/bin/bash
# The gpu preset again (configure, build), then the two tests the previous call's ctest did not reach (speed_ex11_solution, speed_ex12_solution) and every chapter 09 and dispatch test once more.
exec > >(tee $OUT/gall4.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps4.log 2>&1 || { tail -20 $OUT/deps4.log; exit 1; }
cmake --preset gpu > $OUT/configure4.log 2>&1 || { tail -30 $OUT/configure4.log; exit 1; }
timeout 330 cmake --build --preset gpu -j 16 > $OUT/build4.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build4.log
timeout 200 ctest --preset gpu -j 8 -R "speed_ex11_solution|speed_ex12_solution|ch09|dispatch" > $OUT/ctest4.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test" $OUT/ctest4.log | tail -30
date -u
