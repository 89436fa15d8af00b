#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Call A: offline deps, the gpu preset built whole for sm_90, the GPU tests the change touches, peers part 1 staged.
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short | head; date -u; } > $L/env.txt 2>&1
bash scripts/deps.sh --offline .deps/debs >> $L/env.txt 2>&1 || echo "deps failed"
export CUDAARCHS=90
PY=$(command -v python3)
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$PY > $L/configure.txt 2>&1 || { tail -20 $L/configure.txt; }
start=$(date +%s)
cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "build rc=$? in $(( $(date +%s) - start )) s" | tee -a $L/env.txt
grep -E "error|spill|FAILED" $L/build.log | head -20
ctest --test-dir build/gpu -R "^(test_same_function|test_same_function_64bit|test_dispatch_run|test_ch07|test_ch09|test_ch10|test_tour)$" -j 4 --output-on-failure > $L/ctest.txt 2>&1
tail -15 $L/ctest.txt
mkdir -p /tmp/peers && cp .deps/peers-1/* /tmp/peers/
ls build/gpu/python/ | head
tar -C $OUT -czf $OUT/a.tgz logs
