#!/bin/bash
# Call C7: a fresh build of the tree with the new table, and the sanitizers on the held
# slim_lanes LayerNorm kernels (C4 named no bias, and the kernels refused those calls by name).
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c7.txt) 2>&1
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 --target normlab > $L/build.log 2>&1; echo "built rc=$? at $(el)s"
T=build/gpu/tools/normlab
for tool in memcheck racecheck; do
  for args in "layernorm bf16 37 576 32x3" "layernorm fp32 3 500 32x4" "layernorm fp16 64 256 32x1" "layernorm bf16 200 512 32x2" "add_layernorm bf16 5 512 32x2"; do
    set -- $args
    compute-sanitizer --tool $tool --error-exitcode 9 $T check --kernel ch09_${1}@slim_lanes$5_held --op $1 --dtype $2 --rows $3 --cols $4 --bias > $L/san.tmp 2>&1
    echo "$tool $args rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|refuses|FAIL' $L/san.tmp | head -2 | cut -c1-160 | tr '\n' ' ')"
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
