#!/bin/bash
# Call C1: build the gpu preset, time the cluster row configurations into the H200 table
# (normlab tune --update --kernel cluster_row), and stage the first part of the peers' wheels.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/peerstage && cp -r .deps/peers-1 /tmp/peerstage/
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build1.log 2>&1; echo "built rc=$? at $(el)s"
grep -iE "spill|error" $L/build1.log | grep -v " 0 bytes spill" | head
mkdir -p build/tuned && cp kernels/tuned/nvidia-h200.4200GBps.tsv build/tuned/
T=build/gpu/tools/normlab
$T tune --out build/tuned --update --kernel cluster_row --rows 1,32,256 --budget-s $(( 480 - $(el) )) > $L/tune.log 2>&1; echo "tune rc=$? at $(el)s"
$T tune --out build/tuned --update --kernel cluster_row --rows big --dtypes bf16 --widths 12288,14336,16384,24576,32768,65536 --budget-s $(( 530 - $(el) )) > $L/tune_big.log 2>&1; echo "tune big rc=$? at $(el)s"
$T tune --out build/tuned --update --kernel cluster_row --rows big --dtypes fp16,fp32 --widths 16384,65536 --budget-s $(( 545 - $(el) )) >> $L/tune_big.log 2>&1; echo "tune big 16/32 rc=$? at $(el)s"
tail -n 2 $L/tune.log $L/tune_big.log; grep -iE "fail|mismatch|stopped" $L/tune*.log | head
cp build/tuned/nvidia-h200.4200GBps.tsv $L/
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
