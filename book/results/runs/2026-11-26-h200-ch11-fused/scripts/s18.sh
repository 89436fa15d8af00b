#!/bin/bash
# chapter 11 fused: cluster size 2/4/8 (stage 64 rows, 3 in flight); racecheck diagnostics.
exec > >(tee $OUT/s18.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/b18; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B
R=$OUT/res; mkdir -p $R
for v in s64p3c8 s64p3c4 s64p3c2; do
  for sh in "1 576 960" "16 576 960" "64 576 960" "1 2048 2560" "16 2048 2560" "64 2048 2560" "1 4096 6144"; do set -- $sh
    timeout 60 $B/$v/ch11_flashnorm --tokens $1 --k $2 --n $3 > $R/ch11-$v-$1-$2.txt 2>&1; echo "$v $(sed -n 4p $R/ch11-$v-$1-$2.txt | cut -c1-62)"; done; done
for a in "--tokens 64 --k 1000 --n 1001" "--tokens 17 --k 576 --n 960" "--tokens 64 --k 64 --n 64" "--tokens 33 --k 576 --n 960" "--tokens 64 --k 576 --n 960"; do
  timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=fused_kernel $B/s64p3c8/ch11_flashnorm $a --quick > $R/rc-$(echo $a | tr -d ' -').txt 2>&1; echo "racecheck $a rc=$? $(grep -m1 Internal $R/rc-$(echo $a | tr -d ' -').txt)"; done
timeout 100 compute-sanitizer --tool racecheck --racecheck-memcpy-async no --error-exitcode 1 --kernel-name kns=fused_kernel $B/s64p3c8/ch11_flashnorm --tokens 64 --k 576 --n 960 --quick > $R/rc-noasync.txt 2>&1; echo "racecheck no-async rc=$?"
tar -czf $OUT/s18.tgz -C $OUT res
