#!/bin/bash
# The gpu preset in one call: dependencies from .deps/debs, configure, build, every test.
exec > >(tee $OUT/gall.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1 2>/dev/null
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 250 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
timeout 300 ctest --preset gpu -j 8 > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test" $OUT/ctest.log | tail -30
date -u
# chapter 07 beside chapter 10 at the wide shapes, for the dispatcher's rule
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
for s in "256 65536 fp32" "512 65536 bf16" "1024 32768 fp32"; do
  set -- $s
  for k in ch07 ch10_; do
    timeout 60 build/gpu/tools/normlab tour --rows $1 --cols $2 --dtype $3 --kernel $k 2>&1 | grep -v whole_gpu > $OUT/tour-$k-$1x$2-$3.txt
  done
done
cd $OUT && tar -czf tours.tgz tour-*.txt && rm -f tour-*.txt
