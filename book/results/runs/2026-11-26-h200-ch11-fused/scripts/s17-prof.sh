#!/bin/bash
# stall reasons of chapter 11's ring kernel (s64p4c8), and the sanitizers on it.
exec > >(tee $OUT/s17.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/b16; if [ ! -d $B/s64p4c8 ]; then rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B; fi
R=$OUT/res; mkdir -p $R
for a in "--tokens 64 --k 576 --n 960" "--tokens 1 --k 2048 --n 2560" "--tokens 64 --k 2048 --n 2560"; do
  f=$R/ncu-$(echo $a | tr -d ' -').txt
  timeout 120 ncu --cache-control none --clock-control none --kernel-name regex:fused --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,sm__cycles_active.avg $B/s64p4c8/ch11_flashnorm $a --quick > $f 2>&1
  echo "== $a"; grep -E "Duration|Achieved Occ|Theoretical Occ|inst_executed|cycles_active" $f; grep -E "stalled" $f | awk '$NF+0 > 0.3 {print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//'
done
for tool in memcheck racecheck synccheck; do for a in "--tokens 3 --k 1000 --n 1001" "--tokens 64 --k 576 --n 960" "--tokens 17 --k 4100 --n 72"; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 --kernel-name kns=fused_kernel $B/s64p4c8/ch11_flashnorm $a --quick > $R/san-$tool-$(echo $a | tr -d ' -').txt 2>&1; echo "$tool $a rc=$? $(tail -1 $R/san-$tool-$(echo $a | tr -d ' -').txt)"; done; done
tar -czf $OUT/s17.tgz -C $OUT res
