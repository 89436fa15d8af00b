#!/bin/bash
# Call E: build with the staged cluster backward (256x2s2, 256x2s4), sanitize it, its tests
# (test_ch08 [ch10]), then tune the backward (bf16, then fp32) into a copy of the table and
# rebuild with it. Then at once: c2.sh stage peers-1, c2.sh stage peers-2, d.sh.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/e.txt) 2>&1
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "built rc=$? at $(el)s"; grep -E "error" $L/build.log | head
T=build/gpu/tools/normlab
for t in memcheck racecheck synccheck; do
  for a in "ch10_layernorm_backward_cluster@256x2s4 --op layernorm_backward --dtype bf16 --rows 9 --cols 4104 --bias" \
           "ch10_rmsnorm_backward_cluster@256x2s2 --op rmsnorm_backward --dtype bf16 --rows 300 --cols 8192" \
           "ch10_layernorm_backward_cluster@256x2s4 --op layernorm_backward --dtype fp32 --rows 300 --cols 4100"; do
    compute-sanitizer --tool $t --error-exitcode 9 $T check --kernel $a > $L/san.tmp 2>&1
    echo "$t $a rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|FAIL|PASS' $L/san.tmp | head -2 | cut -c1-120 | tr '\n' ' ')"
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
build/gpu/tests/gpu/test_ch08 "[ch10]" > $L/test_ch08.log 2>&1; echo "test_ch08 [ch10] rc=$? at $(el)s"; tail -4 $L/test_ch08.log
for k in 256x2 256x2s4; do  # where the time goes: the stall reasons of the row kernel
  ncu -k regex:backward_cluster -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis $T check --kernel ch10_layernorm_backward_cluster@$k \
    --op layernorm_backward --dtype bf16 --rows 4096 --cols 16384 --bias > $L/ncu-$k.txt 2>&1; echo "ncu $k rc=$? at $(el)s"
done
grep -E "Duration|DRAM Throughput|Stall|Achieved Occupancy|Registers" $L/ncu-*.txt | head -30
mkdir -p /tmp/tuned && cp kernels/tuned/nvidia-h200.4200GBps.tsv /tmp/tuned/
$T tune --out /tmp/tuned --ops layernorm_backward,rmsnorm_backward --dtypes bf16 --repetitions 15 --budget-s 120 > $L/tune.log 2>&1; echo "tune bf16 rc=$? at $(el)s"
$T tune --out /tmp/tuned --ops layernorm_backward,rmsnorm_backward --dtypes fp32 --repetitions 15 --budget-s $(( 470 - $(el) )) >> $L/tune.log 2>&1; echo "tune fp32 rc=$? at $(el)s"
grep -E "FAILED|stopped|added" $L/tune.log | head; grep -E "x (16384|32768|65536|131072):" $L/tune.log | tail -24
cp /tmp/tuned/nvidia-h200.4200GBps.tsv $L/ && cp $L/nvidia-h200.4200GBps.tsv kernels/tuned/
cmake --build --preset gpu -j 16 > $L/rebuild.log 2>&1; echo "rebuilt rc=$? at $(el)s"
for a in "layernorm_backward --rows 4096 --cols 16384" "rmsnorm_backward --rows 512 --cols 32768" "layernorm_backward --rows 256 --cols 65536"; do
  $T explain --op $a --dtype bf16 | grep -E "kernel|why"; done
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
