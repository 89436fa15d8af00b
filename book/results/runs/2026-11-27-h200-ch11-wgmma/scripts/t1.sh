#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/t && tar -xJf .deps/s23/t.txz -C /tmp/t || exit 1
timeout 200 /tmp/t/test_ch11_new 2>&1 | tail -4
timeout 100 /tmp/t/test_ch11_new "fused graph replays give the same bits: warps and blocks are added in a fixed order" -s 2>&1 | grep -E "x .* ->|passed|failed" | head -12
