#!/bin/bash
# Call C1: build the gpu preset with the staged family (staged.cu; staged4 and staged8 in
# kConfigs), run the GPU tests that run every configuration, and the sanitizers on its kernels;
# stage the peers' first part.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/peerstage && cp -r .deps/peers-1 /tmp/peerstage/
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "built rc=$? at $(el)s"
grep -iE "spill|error" $L/build.log | grep -v " 0 bytes spill" | head
T=build/gpu/tools/normlab
for tool in memcheck racecheck; do
  for args in "rmsnorm bf16 37 10240 8" "layernorm fp32 5 16384 4" "add_rmsnorm fp16 64 8192 8" "add_layernorm bf16 3 32768 8" "layernorm bf16 200 2048 4" "rmsnorm fp32 1 4096 4" "add_layernorm fp32 130 3584 4"; do
    set -- $args
    compute-sanitizer --tool $tool --error-exitcode 9 $T check --kernel ch09_${1}@staged$5 --op $1 --dtype $2 --rows $3 --cols $4 --bias > $L/san.tmp 2>&1
    echo "$tool $args rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|refuse|FAIL|PASS' $L/san.tmp | head -2 | cut -c1-160 | tr '\n' ' ')"
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
# Refused by name: a row off the 16-byte grid, and a row wider than the stage holds.
$T check --kernel ch09_rmsnorm@staged8 --op rmsnorm --dtype bf16 --rows 4 --cols 10241 2>&1 | tail -2
$T check --kernel ch09_rmsnorm@staged8 --op rmsnorm --dtype fp32 --rows 4 --cols 16388 2>&1 | tail -2
timeout $(( 590 - $(el) )) ctest --test-dir build/gpu -R "test_same_function|test_ch09|test_dispatch_run|test_tuned|normlab_explain|sass_ch09" -j 8 > $L/ctest.log 2>&1; echo "ctest rc=$? at $(el)s"
grep -E "tests passed|\*\*\*|Failed|Not Run" $L/ctest.log | tail -12
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
