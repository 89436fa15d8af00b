#!/bin/bash
# Call C1: build the gpu preset, tune the slim configurations in groups of lanes into the H200
# table, rebuild with it, A/B the torch op against the library of the previous commit (old),
# then the tests that read the table and the new kernels.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/run11/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build1.log 2>&1; echo "built rc=$? at $(el)s"
grep -iE "spill|error" $L/build1.log | grep -v " 0 bytes spill" | head
mkdir -p build/tuned && cp kernels/tuned/nvidia-h200.4200GBps.tsv build/tuned/
build/gpu/tools/normlab tune --out build/tuned --update --kernel slim_lanes > $L/tune.log 2>&1; echo "tune rc=$? at $(el)s"
tail -2 $L/tune.log; grep -iE "fail|mismatch" $L/tune.log | head
cp build/tuned/nvidia-h200.4200GBps.tsv kernels/tuned/ && cp kernels/tuned/nvidia-h200.4200GBps.tsv $L/
cmake --build --preset gpu -j 16 > $L/build2.log 2>&1; echo "rebuilt rc=$? at $(el)s"
mkdir -p /tmp/lib; xz -dc .deps/run11/capi_old.so.xz > /tmp/lib/old.so; cp build/gpu/python/libnormlab_capi.so /tmp/lib/new.so
for round in 1 2; do
  for lib in old new; do NORMLAB_CAPI=/tmp/lib/$lib.so python3 .deps/run11/ab.py $lib$round $L || exit 1; done
done
python3 .deps/run11/ab_report.py $L > $L/ab.txt; tail -12 $L/ab.txt
echo "ab done at $(el)s"
left=$(( 570 - $(el) ))
timeout $left ctest --test-dir build/gpu -R "test_same_function|test_dispatch_run|test_tuned|test_ch09_dispatch|test_ex13|normlab_explain" -j 8 > $L/ctest.log 2>&1; echo "ctest rc=$? at $(el)s"
grep -E "tests passed|\*\*\*|Failed|Not Run" $L/ctest.log | tail -8
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
