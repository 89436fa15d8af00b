#!/bin/bash
# Chapter 11's 18 shapes with the x-first, one-barrier warp split (xb), once.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/t1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/ab && tar -xJf .deps/s22c/ch11.txz -C /tmp/ab ch11_xb || exit 1
timeout 300 /tmp/ab/ch11_xb
date -u
