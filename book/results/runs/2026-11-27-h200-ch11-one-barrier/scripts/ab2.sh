#!/bin/bash
# Chapter 11's warp split: committed (old), x's loads first (xa), and x first plus 1/RMS taken by each output's thread with one barrier fewer (xb); alternated, three rounds, plain in the same process.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/ab2; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/ab && tar -xJf .deps/s22c/ch11.txz -C /tmp/ab || exit 1
for r in 1 2 3; do for s in "2048 2560 16" "2048 2560 1" "576 960 16" "576 960 64" "576 960 1" "4096 6144 16"; do set -- $s
  for v in old xa xb; do echo "== r$r $v"; timeout 60 /tmp/ab/ch11_$v --tokens $3 --k $1 --n $2 --fused-kernel warp 2>&1 | grep -E "^ *[0-9]+ ->|FAIL"; done
done; done
date -u
