#!/bin/bash
# Call C3: build the gpu preset (the tuner now waits 500000 cycles after each flush, as the
# comparison tool does; four held slim_lanes configurations), then time every candidate again at
# 1, 32 and 256 rows of bf16 RMSNorm and LayerNorm into the H200 table; stage the peers' first part.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c3.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/peerstage && cp -r .deps/peers-1 /tmp/peerstage/
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "built rc=$? at $(el)s"
grep -iE "spill|error" $L/build.log | grep -v " 0 bytes spill" | head
mkdir -p build/tuned && cp kernels/tuned/nvidia-h200.4200GBps.tsv build/tuned/
T=build/gpu/tools/normlab
$T tune --out build/tuned --update --kernel / --rows 1,32,256 --dtypes bf16 --ops rmsnorm,layernorm --repetitions 15 --budget-s $(( 570 - $(el) )) > $L/tune1.log 2>&1; echo "tune rc=$? at $(el)s"
tail -n 2 $L/tune1.log; grep -iE "fail|mismatch|stopped" $L/tune1.log | head
cp build/tuned/nvidia-h200.4200GBps.tsv $L/
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
