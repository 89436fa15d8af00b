#!/bin/bash
# Chapter 11's warp split for up to 16 tokens through K > 1024: block shapes by NL_WS (0: the committed <1,3,16,4>; 1 <1,3,8,4>; 2 <1,2,8,4>; 3 <1,3,16,2>; 4 <1,2,16,4>; 5 <1,3,8,8>), two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/w2; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/w && tar -xJf .deps/s22c/ch11.txz -C /tmp/w || exit 1
for r in 1 2; do for s in "4096 6144 16" "4096 6144 1" "2048 2560 16" "2048 2560 1"; do set -- $s
  for p in 0 1; do echo "== r$r NL_WS=$p"; NL_WS=$p timeout 60 /tmp/w/ch11_ws --tokens $3 --k $1 --n $2 --fused-kernel warp 2>&1 | grep -E "^ *[0-9]+ ->|FAIL"; done
done; done
date -u
