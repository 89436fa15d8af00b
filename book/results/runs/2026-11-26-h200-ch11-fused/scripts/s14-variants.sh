#!/bin/bash
# chapter 11's fused kernel: stage depth (64/128 rows of W*) x cluster size (8/16), full table each; ncu durations.
exec > >(tee $OUT/s14.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/b14; mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B
R=$OUT/res; mkdir -p $R
for v in s64c8 s128c8 s64c16 s128c16; do
  timeout 100 $B/$v/ch11_flashnorm > $R/ch11-$v.txt 2>&1; echo "== $v rc=$?"; sed -n 2,20p $R/ch11-$v.txt | awk '{print $1,$3,$5,$7,$8,$9,$10,$11}' | head -20
done
for a in "--tokens 1 --k 576 --n 960" "--tokens 1 --k 2048 --n 2560" "--tokens 64 --k 2048 --n 2560"; do
  timeout 120 ncu --cache-control none --metrics gpu__time_duration.sum $B/s128c8/ch11_flashnorm $a --quick > $R/ncu-$(echo $a | tr -d ' -').txt 2>&1
  echo "== ncu $a"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $R/ncu-$(echo $a | tr -d ' -').txt | sed 's/(int, int, int)//' | cut -c1-110 | paste - - | awk '{print $1, $(NF)}' | head -40
done
tar -czf $OUT/s14.tgz -C $OUT res
