#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/c2; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/s21/c2.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
for r in 1 2; do for s in "576 960" "2048 2560"; do set -- $s; for t in 1 16 64; do
  timeout 60 $P --tokens $t --k $1 --n $2 2>&1 | grep -E "^ *[0-9]+ ->|FAIL" >> $R/table.txt
done; done; done
timeout 120 compute-sanitizer --tool racecheck --print-limit 3 $P --tokens 16 --k 2048 --n 2560 --fused-kernel warp --quick > $R/race-2048.txt 2>&1
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $P --tokens 5 --k 1100 --n 200 --fused-kernel warp --quick > $R/race-1100.txt 2>&1; echo "rc=$?" >> $R/race-1100.txt
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $P --tokens 16 --k 2048 --n 960 --fused-kernel warp --quick > $R/race-2048-960.txt 2>&1; echo "rc=$?" >> $R/race-2048-960.txt
.deps/s21/proto 1 2>&1 | grep -E "^M=|v2 4,1,8,3|v2 1,4,8,8|v2 1,1,8,3" > $R/proto.txt
cat $R/table.txt $R/proto.txt; grep -E "Race|race|kernel|SUMMARY|rc=" $R/race-*.txt | head -30
