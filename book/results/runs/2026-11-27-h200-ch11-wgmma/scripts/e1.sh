#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/e1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b && tar -xJf .deps/s23/ch11.txz -C /tmp/b || exit 1
cd /tmp/b
timeout 120 ./test_ch11_new 2>&1 | tail -30
for shape in "64 2048 2560" "32 2048 2560" "16 2048 2560" "64 4096 6144" "64 576 960"; do
  set -- $shape
  echo "=== tokens $1 K $2 N $3"
  ./ch11_old_s --tokens $1 --k $2 --n $3 --fused-kernel cluster | grep -E " -> |FAILED|floor|rror"
  for g in 1 2 3; do echo "NL_GROUPS=$g"; NL_GROUPS=$g ./ch11_new --tokens $1 --k $2 --n $3 --fused-kernel cluster 2>&1 | grep -E " -> |FAILED|floor|rror"; done
done
date -u
tar -C $OUT -czf $OUT/e1.tgz e1
