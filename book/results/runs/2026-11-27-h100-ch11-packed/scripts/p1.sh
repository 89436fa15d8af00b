#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/p1; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
xz -dc .deps/s21/b/ch11_flashnorm.xz > /tmp/ch11 && chmod +x /tmp/ch11
.deps/s21/proto 2 > $R/proto.txt 2>&1
for s in "576 960" "2048 2560"; do set -- $s; for t in 1 16 64; do
  timeout 60 /tmp/ch11 --tokens $t --k $1 --n $2 2>&1 | grep -E "^ *[0-9]+ ->|FAIL|floor|plain" >> $R/ch11.txt
done; done
cat $R/proto.txt $R/ch11.txt
