#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/e2; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b && tar -xJf .deps/s22c/ch11.txz -C /tmp/b || exit 1
cd /tmp/b
for shape in "16 2048 2560" "64 2048 2560" "32 2048 2560"; do
  set -- $shape
  echo "=== tokens $1 K $2 N $3"
  ./ch11_old --tokens $1 --k $2 --n $3 | grep -E " -> |FAILED"
  for p in 0 1 2 3 4; do echo "NL_CS=$p"; NL_CS=$p ./ch11_new2 --tokens $1 --k $2 --n $3 --fused-kernel cluster 2>&1 | grep -E " -> |FAILED|cluster split <"; done
done
date -u
