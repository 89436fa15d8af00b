#!/bin/bash
# Session 23: chapter 11 with the cluster kernel rebuilt on wgmma: the gpu preset configured and built here, its chapter 11 tests (test_ch11, the course's sanitizer runs, the SASS checks), the 18 shapes twice (JSON), PyTorch's norm + matmul.
R=$OUT/f1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || { tail -20 $R/deps.log; exit 1; }
cmake --preset gpu > $R/configure.log 2>&1 || { tail -30 $R/configure.log; exit 1; }
timeout 300 cmake --build --preset gpu -j 16 > $R/build.log 2>&1; echo "build rc=$?"; tail -2 $R/build.log
date -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
timeout 200 ctest --preset gpu -j 8 -R "ch11" --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test|Failed|Skipped" $R/ctest.log | tail -20
P=$(find build -name ch11_flashnorm -type f | head -1); echo "program $P"
for i in 1 2; do timeout 120 $P --json $R/ch11-$i.json > $R/ch11-$i.txt 2>&1; echo "ch11 round $i rc=$?"; done
timeout 150 python3 bench/flashnorm_torch.py > $R/ch11_torch.json 2> $R/ch11_torch.err; echo "torch rc=$?"
cat $R/ch11-1.txt; grep -E "^ +[0-9]+ ->" $R/ch11-2.txt
date -u
tar -C $OUT -czf $OUT/f1.tgz f1
