#!/bin/bash
# Chapter 11: the committed warp split (cur) against the same with each unit's x loads issued before its W* loads (xa), alternated, three rounds, plain in the same process.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/ab && tar -xJf .deps/s21/ab/ab.txz -C /tmp/ab || exit 1
for r in 1 2 3; do for s in "576 960 64" "2048 2560 1" "2048 2560 16" "576 960 1"; do set -- $s
  for v in cur xa; do echo "== r$r $v"; timeout 60 /tmp/ab/ch11_$v --tokens $3 --k $1 --n $2 --fused-kernel warp 2>&1 | grep -E "^ *[0-9]+ ->|FAIL"; done
done; done
date -u
