#!/bin/bash
# Chapter 11's 18 shapes, the committed code (8ea3ace, built on the CPU machine for sm_90), twice, on an H100.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/h2; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/h && tar -xJf .deps/s22c/ch11.txz -C /tmp/h || exit 1
for i in 1 2; do timeout 150 /tmp/h/ch11_final --json $R/ch11-$i.json > $R/ch11-$i.txt 2>&1; echo "round $i rc=$?"; done
timeout 150 python3 bench/flashnorm_torch.py > $R/ch11_torch.json 2> $R/ch11_torch.err; echo "torch rc=$?"
cat $R/ch11-1.txt; grep -E "^ +[0-9]+ ->" $R/ch11-2.txt
date -u
