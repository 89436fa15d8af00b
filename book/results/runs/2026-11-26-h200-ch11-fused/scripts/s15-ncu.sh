#!/bin/bash
# ncu details of chapter 11's fused kernel (variants built with stage 64/128, cluster 8/16).
exec > >(tee $OUT/s15.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/b14; if [ ! -d $B ]; then mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B; fi
R=$OUT/res; mkdir -p $R
for v in s64c8 s128c8; do for a in "--tokens 1 --k 576 --n 960" "--tokens 1 --k 2048 --n 2560"; do
  f=$R/ncu-$v-$(echo $a | tr -d ' -').txt
  timeout 120 ncu --cache-control none --clock-control none --kernel-name regex:fused --launch-skip 2 --launch-count 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats $B/$v/ch11_flashnorm $a --quick > $f 2>&1
  echo "== $v $a"; grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occ|Stall|Memory Throughput|DRAM Through|L2 Hit|Warp Cycles Per Issued|Block Limit|Cluster|Waves|Grid Size|Shared Memory Config" $f | head -40
done; done
tar -czf $OUT/s15.tgz -C $OUT res
