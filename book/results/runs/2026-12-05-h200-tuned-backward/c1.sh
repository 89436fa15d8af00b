#!/bin/bash
# Next device call C1 (standalone): build the gpu preset with the leaner slim kernels (commit
# 1692383: no row loop, one barrier a sum, SlimArgs, held loads relaxed) and the cluster backward
# configurations (commit 39bce22) and the forward cluster configurations (473b43e), run the GPU tests that run every configuration, the sanitizers
# on the slim and staged kernels and on the backward configurations. The tuning is C2's.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "built rc=$? at $(el)s"
grep -iE "spill|error" $L/build.log | grep -v " 0 bytes spill" | head
T=build/gpu/tools/normlab
# memcheck and racecheck: block rows (held and not, every op), groups of lanes, a ragged last
# block of groups, strided, in place; LayerNorm ops with --bias.
for tool in memcheck racecheck; do
  for args in "rmsnorm bf16 1 4096 slim2_held" "layernorm bf16 33 8192 slim4_held --bias" \
              "add_rmsnorm fp16 7 2048 slim1_held" "add_layernorm bf16 37 12000 slim4 --bias --in-place" \
              "rmsnorm fp32 101 256 slim_lanes32x2_held" "layernorm bf16 99 576 slim_lanes16x5 --bias" \
              "add_rmsnorm bf16 1000 256 slim_lanes8x4" "add_rmsnorm fp16 37 5000 slim2 --row-stride 5008" \
              "rmsnorm bf16 5 32768 slim8" "layernorm fp32 3 4096 slim2 --bias"; do
    set -- $args
    op=$1 dt=$2 rows=$3 cols=$4 cfg=$5; shift 5
    compute-sanitizer --tool $tool --error-exitcode 9 $T check --kernel ch09_${op}@$cfg --op $op --dtype $dt --rows $rows --cols $cols "$@" > $L/san.tmp 2>&1
    echo "$tool $op $dt $rows x $cols $cfg $* rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|refuse|FAIL|PASS' $L/san.tmp | head -2 | cut -c1-160 | tr '\n' ' ')"
  done
  # The cluster backward configurations: one block (512x4) and three (256x4), synccheck too.
  for args in "layernorm_backward bf16 9 4104 512x4 --bias" "rmsnorm_backward fp16 5 16392 256x4 --dresidual --gemma" \
              "layernorm_backward bf16 7 40001 256x2 --misalign 1 --bias"; do
    set -- $args
    op=$1 dt=$2 rows=$3 cols=$4 cfg=$5; shift 5
    for t in $tool $([ $tool = racecheck ] && echo synccheck); do
      compute-sanitizer --tool $t --error-exitcode 9 $T check --kernel ch10_${op}_cluster@$cfg --op $op --dtype $dt --rows $rows --cols $cols "$@" > $L/san.tmp 2>&1
      echo "$t $op $dt $rows x $cols $cfg $* rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|refuse|FAIL|PASS' $L/san.tmp | head -2 | cut -c1-160 | tr '\n' ' ')"
    done
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
timeout $(( 560 - $(el) )) ctest --test-dir build/gpu -R "test_ch08|test_ch10|test_capabilities|test_same_function|test_ch09|test_dispatch_run|test_tuned|normlab_explain|sanitize.*(ch09_(slim|staged)|ch10_(backward|cluster))" -j 8 > $L/ctest.log 2>&1; echo "ctest rc=$? at $(el)s"
grep -E "tests passed|\*\*\*|Failed|Not Run" $L/ctest.log | tail -14
cp build/gpu/Testing/Temporary/LastTest.log $L/ctest-last.log 2>/dev/null
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
