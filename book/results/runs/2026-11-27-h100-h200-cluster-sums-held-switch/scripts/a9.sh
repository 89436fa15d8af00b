#!/bin/bash
# Session 20: the cluster entries declare 512 KiB rows (262144 16-bit columns): test_ch10, test_capabilities and test_dispatch_run.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/t && tar xJf .deps/c20/t.txz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for t in test_dispatch_run test_capabilities test_ch10; do echo "== $t"; (cd /tmp/t && timeout 150 ./$t 2>&1 | tail -4); done
date -u
