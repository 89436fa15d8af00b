#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/c3; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/s21/c2.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
for r in 1 2; do for s in "576 960" "2048 2560"; do set -- $s; for t in 1 16 64; do
  timeout 60 $P --tokens $t --k $1 --n $2 2>&1 | grep -E "^ *[0-9]+ ->|FAIL" >> $R/table.txt
done; done; done
.deps/s21/proto 1 2>&1 > $R/proto.txt
cat $R/table.txt $R/proto.txt; grep -E "Race|race|kernel|SUMMARY|rc=" $R/race-*.txt | head -30
