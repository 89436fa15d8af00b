#!/bin/bash
# Session 23 on an H100: the gpu preset built here; Nsight Compute's profile of chapter 11's cluster-kernel cases (ch11_cluster_small, ch11_fused_64) with the wgmma kernel; the 18 shapes twice; test_ch11.
R=$OUT/p1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || { tail -20 $R/deps.log; exit 1; }
cmake --preset gpu > $R/configure.log 2>&1 || { tail -30 $R/configure.log; exit 1; }
timeout 300 cmake --build --preset gpu -j 16 > $R/build.log 2>&1; echo "build rc=$?"; tail -1 $R/build.log
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
timeout 150 scripts/profile --only '^ch11_(cluster_small|fused_64)$' build/gpu; echo "profile rc=$?"
cp book/results/profile.json book/results/profile.md $R/; mkdir -p $R/profile; cp book/results/profile/ch11_cluster_small.* book/results/profile/ch11_fused_64.* book/results/profile/cases.tsv $R/profile/ 2>/dev/null
timeout 100 build/gpu/tests/test_ch11 2>&1 | tail -3
P=build/gpu/chapters/11-flashnorm/ch11_flashnorm
for i in 1 2; do timeout 120 $P --json $R/ch11-$i.json > $R/ch11-$i.txt 2>&1; echo "ch11 round $i rc=$?"; done
cat $R/ch11-1.txt; grep -E "^ +[0-9]+ ->" $R/ch11-2.txt
date -u
tar -C $OUT -czf $OUT/p1.tgz p1
