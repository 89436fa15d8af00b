#!/bin/bash
# Few rows: every sweep entry of the chapter program (block and narrow) at 1 and 32 rows, three rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s40; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/s39 && { [ -x /tmp/s39/chapters/09-every-width/ch09_every_width ] || tar -xJf .deps/carry13/s39.txz -C /tmp/s39; } || exit 1
B=/tmp/s39/chapters/09-every-width/ch09_every_width
for round in 1 2 3; do for s in "1 4096 bf16" "32 4096 bf16" "1 4096 fp32" "1 8192 bf16"; do
  set -- $s; echo "== r$round $*" >> $R/few.txt
  $B --rows $1 --cols $2 --dtype $3 | grep -E "^09 " >> $R/few.txt
done; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s40.tgz s40
