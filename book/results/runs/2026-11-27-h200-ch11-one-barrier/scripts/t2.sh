#!/bin/bash
# test_ch11 after the test refactor (Setup::run(FusedKernel)), built on the CPU machine from the last commit.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/t2; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/t && tar -xJf .deps/s22c/ch11.txz -C /tmp/t || exit 1
timeout 200 /tmp/t/test_ch11; echo "rc=$?"
date -u
