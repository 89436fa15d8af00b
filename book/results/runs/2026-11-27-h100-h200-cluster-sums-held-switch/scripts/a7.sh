#!/bin/bash
# Session 20: test_dispatch_run with the rule for many rows of a MiB or more (its new case: fp32 add + RMSNorm 65 x 262144 through chapter 10).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
xz -dc .deps/c20/d.xz > /tmp/test_dispatch_run; chmod +x /tmp/test_dispatch_run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 200 /tmp/test_dispatch_run 2>&1 | tail -5; echo "rc=${PIPESTATUS[0]}"
date -u
