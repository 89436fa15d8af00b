#!/bin/bash
# Session 22: the course sanitizer runs of the warp split's DRAM block (aligned and ragged) under the gpu preset.
R=$OUT/s1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || { tail -20 $R/deps.log; exit 1; }
cmake --preset gpu > $R/configure.log 2>&1 || { tail -30 $R/configure.log; exit 1; }
timeout 300 cmake --build --preset gpu -j 16 --target ch11_flashnorm > $R/build.log 2>&1; echo "build rc=$?"; tail -2 $R/build.log
date -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
timeout 200 ctest --preset gpu -j 8 -R "ch11_flashnorm_decode_warps_dram_aligned" > $R/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "Test +#|tests passed|Total Test" $R/ctest.log | tail -20
date -u
tar -C $OUT -czf $OUT/s1.tgz s1
