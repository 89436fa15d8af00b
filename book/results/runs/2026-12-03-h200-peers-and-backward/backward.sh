#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Call E: the backward's one-level kernels without the head-view branch: build, bench the two
# 16384 x 4096 bf16 backward rows against the copy roof, the backward and head-view tests, sanitizers.
L=$OUT/logs; mkdir -p $L
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short | head; date -u; } > $L/env.txt 2>&1
bash scripts/deps.sh --offline .deps/debs >> $L/env.txt 2>&1 || echo "deps failed"
export CUDAARCHS=90
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DNORMLAB_TORCH_EXTENSION=OFF > $L/configure.txt 2>&1 || tail -20 $L/configure.txt
start=$(date +%s)
cmake --build build/gpu -j 16 --target normlab normlab_bench test_ch08 test_head_views test_known_wrong_head_views test_known_wrong_ch08 > $L/build.log 2>&1
echo "build rc=$? in $(( $(date +%s) - start )) s" | tee -a $L/env.txt
grep -E "error|spill|FAILED" $L/build.log | head -20
for i in 1 2; do
build/gpu/bench/normlab_bench --benchmark_filter='ch08_(rms|layer)norm_backward/bf16/16384x4096' --benchmark_counters_tabular=true > $L/bench-$i.txt 2>&1
done
tail -6 $L/bench-1.txt; tail -4 $L/bench-2.txt
ctest --test-dir build/gpu -R "^(test_ch08|test_head_views|test_known_wrong_head_views|test_known_wrong_ch08)$" -j 4 --output-on-failure > $L/ctest.txt 2>&1
tail -8 $L/ctest.txt
S=/usr/local/cuda/bin/compute-sanitizer; [ -x $S ] || S=compute-sanitizer
N=build/gpu/tools/normlab
for args in "--kernel ch08_layernorm_backward --op layernorm_backward --dtype bf16 --rows 35 --cols 100 --groups 5 --bias" \
            "--kernel ch08_layernorm_backward --op layernorm_backward --dtype bf16 --rows 64 --cols 4096 --groups 4 --bias" \
            "--kernel ch08_rmsnorm_backward --op rmsnorm_backward --dtype bf16 --rows 64 --cols 576 --groups 8"; do
  for tool in memcheck racecheck; do
    $S --tool $tool --error-exitcode 9 $N check $args > /tmp/s.txt 2>&1; echo "$tool [$args] rc=$?" | tee -a $L/sanitize.txt; tail -3 /tmp/s.txt >> $L/sanitize.txt
  done
done
tar -C $OUT -czf $OUT/e.tgz logs
