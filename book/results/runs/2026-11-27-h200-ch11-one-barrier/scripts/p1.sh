#!/bin/bash
# Session 22: the gpu preset built here, Nsight Compute's profile of chapter 11's new case (ch11_warp_dram: the warp split's block for W* from DRAM, 16 tokens through 4096 -> 6144), and the two blocks side by side on nearly one shape (4096 -> 4095: one block of 16 warps an SM; 4096 -> 4097: two of 8).
R=$OUT/p1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || { tail -20 $R/deps.log; exit 1; }
cmake --preset gpu > $R/configure.log 2>&1 || { tail -30 $R/configure.log; exit 1; }
timeout 300 cmake --build --preset gpu -j 16 > $R/build.log 2>&1; echo "build rc=$?"; tail -1 $R/build.log
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
timeout 200 scripts/profile --only '^ch11_warp_dram$' build/gpu; echo "profile rc=$?"
P=build/gpu/chapters/11-flashnorm/ch11_flashnorm
for n in 4095 4097; do
  timeout 100 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    -k regex:fused_warp_split_kernel -c 1 $P --tokens 16 --k 4096 --n $n --fused-kernel warp --quick > $R/ncu-16x4096x$n.txt 2>&1
  echo "ncu $n rc=$?"; grep -E "fused_warp_split_kernel<|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Block Limit Registers|Warp Cycles Per Issued|Waves Per SM" $R/ncu-16x4096x$n.txt
done
cp book/results/profile.json book/results/profile.md $R/; mkdir -p $R/profile; cp book/results/profile/ch11_warp_dram.* book/results/profile/cases.tsv $R/profile/ 2>/dev/null
date -u
tar -C $OUT -czf $OUT/p1.tgz p1
