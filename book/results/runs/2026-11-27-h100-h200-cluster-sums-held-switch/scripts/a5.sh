#!/bin/bash
# Session 20: the gpu preset (dependencies, configure, build) and its tests of chapters 09 and 10, then the chooser's picks at fp32 48 x 1.4 M, 1.6 M and 1.9 M columns (ch10_huge_rows from build/gpu), and chapter 07 against chapter 10 on many rows wider than a cluster holds.
exec > >(tee $OUT/a5.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 280 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
date -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
for cols in 1400000 1600000 1900000; do for op in layernorm rmsnorm; do
  echo "== $op 48 x $cols"; timeout 60 build/gpu/chapters/10-huge-rows/ch10_huge_rows --dtype fp32 --op $op --rows 48 --cols $cols --kernel _ 2>&1 | grep -E "ch10_|FAIL|rror"
done; done
date -u
# Many rows wider than a cluster holds: chapter 07 (the dispatcher's fallback) against chapter 10's kernels.
for shape in "fp32 128 1048576" "fp32 100 2097152" "fp32 512 262144" "bf16 128 1048576" "bf16 64 4194304"; do set -- $shape; for op in layernorm rmsnorm; do
  for k in ch07_$op ch10_$op; do echo "== $op $1 $2 x $3 $k"; timeout 120 build/gpu/tools/normlab tour --op $op --dtype $1 --rows $2 --cols $3 --kernel $k 2>&1 | grep -E "ch07_|ch10_|FAIL|rror"; done
done; done
date -u
timeout 200 ctest --preset gpu -j 10 -R "ch10|ch09" > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test|Failed|Skipped" $OUT/ctest.log | tail -30
date -u
