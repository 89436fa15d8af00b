#!/bin/bash
# The gpu preset on this commit, call 1 of 2: dependencies, configure, build, then as many tests
# as fit in the call (call 2, g2.sh, runs the rest on the same build while the machine is warm).
s=$(date +%s); L=$OUT/logs; mkdir -p $L
exec > >(tee $L/g1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
bash scripts/deps.sh --offline .deps/dev18/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu > $L/configure.log 2>&1 || { tail -30 $L/configure.log; }
timeout 400 cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "build rc=$? at $(( $(date +%s) - s ))s"; tail -2 $L/build.log
left=$(( 560 - ($(date +%s) - s) ))
if [ $left -gt 30 ]; then
  timeout $left ctest --preset gpu -j 8 > build/gpu/ctest1.log 2>&1; echo "ctest rc=$? at $(( $(date +%s) - s ))s"
fi
cp build/gpu/ctest1.log $L/ 2>/dev/null; echo "passed: $(grep -c ' Passed ' build/gpu/ctest1.log)"
grep -E "\*\*\*|Failed|Not Run" build/gpu/ctest1.log | head -20
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
