#!/bin/bash
# Session 20: chapter 10's chooser between the whole GPU and the split row for fp32 rows of 1.4 M to 2.5 M columns (the held form from 6 vectors a thread), every path of ch10_huge_rows, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c20/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
for cols in 1400000 1600000 1900000 2100000 2500000; do for op in layernorm rmsnorm; do
  echo "== round $round $op 48 x $cols"
  timeout 90 /tmp/v/ch10_now --dtype fp32 --op $op --rows 48 --cols $cols 2>&1 | grep -vE "^\s*$"
done; done; done
date -u
