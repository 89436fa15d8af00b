#!/bin/bash
# Nsight Compute of chapter 08's backward at bf16 16384 x 4096: base (main) and staged (s1, 2 stages).
exec > >(tee $OUT/e2.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/bins; [ -d $B/base ] || { mkdir -p $B && tar -xJf .deps/e1/bins.txz -C $B; }
R=$OUT/ncu; mkdir -p $R
N=(ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters --kernel-name-base mangled -k "regex:StorePartialRow" --launch-skip 4 --launch-count 1)
for op in rmsnorm_backward layernorm_backward; do
  "${N[@]}" $B/base/ch08_backward --rows 16384 --cols 4096 --dtype bf16 --kernel ch08_$op --op $op > $R/base-$op.txt 2>&1; echo "base $op rc=$?"
  NORMLAB_EXP_STAGES=2 "${N[@]}" $B/s1/ch08_backward --rows 16384 --cols 4096 --dtype bf16 --kernel ch08_$op --op $op > $R/s1-$op.txt 2>&1; echo "s1 $op rc=$?"
done
grep -E "^  [a-z_]+<|void |Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Limit|Issue Slots Busy|No Eligible|Eligible Warps|Theoretical Occ|Stall|Warp Cycles Per Issued" $R/*.txt | cut -c1-200
tar -czf $OUT/e2.tgz -C $OUT ncu
