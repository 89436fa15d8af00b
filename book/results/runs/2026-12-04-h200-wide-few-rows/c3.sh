#!/bin/bash
# Call C3: a fresh build of the final tree; the tests that run every kernel a call may get (the
# cluster row entries now forced), the registry and chapter 10's; few.py again with the product's
# cluster row kernel beside the lean variants; and the SASS of the kernels whose shared code
# changed (ClusterSum's barrier, norm_row_in_registers' slice) against the previous commit's.
s=$(date +%s); L=$OUT/logs; mkdir -p $L/sass
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c3.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sass() {  # $1 tree, $2 file, $3 out
  nvcc -O3 -DNDEBUG -std=c++20 -cubin -arch=sm_90 -I$1/kernels -I$1/common/include $1/kernels/$2 -o /tmp/$3.cubin 2>/dev/null &&
    cuobjdump -sass /tmp/$3.cubin | sed -E 's@/\*[0-9a-f]{4}\*/@@; s@ +/\* 0x[0-9a-f]+ \*/@@' | grep -vE "^\s*$|^\s*/\* 0x" > $L/sass/$3.txt
}
for f in cluster.cu general.cu block.cu; do
  (sass .deps/old $f old-${f%.cu}; sass . $f new-${f%.cu}) &
done
bash scripts/deps.sh --offline .deps/debs > $L/deps.log 2>&1 || tail -20 $L/deps.log
cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DPython3_EXECUTABLE=$(command -v python3) > $L/configure.log 2>&1 || tail -30 $L/configure.log
cmake --build --preset gpu -j 16 > $L/build.log 2>&1; echo "built rc=$? at $(el)s"
grep -iE "spill|error" $L/build.log | grep -v " 0 bytes spill" | head
ctest --test-dir build/gpu -R "test_same_function|test_registry|test_ch10$|test_ch10_|test_dispatch_run|test_tuned|normlab_explain" -j 8 > $L/ctest.log 2>&1; echo "ctest rc=$? at $(el)s"
grep -E "tests passed|\*\*\*|Failed|Not Run|Test +#" $L/ctest.log | tail -14
timeout 120 python3 book/results/runs/2026-12-04-h200-wide-few-rows/few.py .deps/few/libfew2.so $L/few-row.json 1,32 > $L/few-row.txt 2>&1; echo "few rc=$? at $(el)s"
wait
for f in cluster general block; do
  if cmp -s $L/sass/old-$f.txt $L/sass/new-$f.txt; then echo "sass $f: identical ($(grep -c Function $L/sass/new-$f.txt) functions)"; else echo "sass $f: DIFFERS"; fi
done
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
