#!/bin/bash
# Session 23: the whole gpu preset's ctest after chapter 11's library moved to sm_90a.
R=$OUT/g1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || { tail -20 $R/deps.log; exit 1; }
cmake --preset gpu > $R/configure.log 2>&1 || { tail -30 $R/configure.log; exit 1; }
timeout 200 cmake --build --preset gpu -j 16 > $R/build.log 2>&1; echo "build rc=$?"; tail -1 $R/build.log
date -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
timeout 330 ctest --preset gpu -j 10 --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test|Failed|Skipped" $R/ctest.log | tail -20
date -u
tar -C $OUT -czf $OUT/g1.tgz g1
