#!/bin/bash
# The gpu preset in one call (dependencies from .deps/debs, configure, build, every test, pytest), then chapter 09's program from that build: the dispatcher beside narrow32x4 / narrow32x8 / block2_256x4 at rows of 97 to 256 chunks, four ops, two rounds.
exec > >(tee $OUT/gall.log) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 250 cmake --build --preset gpu -j 16 > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
timeout 220 ctest --preset gpu -j 8 > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Not Run|Total Test" $OUT/ctest.log | tail -30
date -u
timeout 60 scripts/torch_test build/gpu > $OUT/torch_test.log 2>&1; echo "torch_test rc=$?"; tail -n 3 $OUT/torch_test.log
B=build/gpu/chapters/09-every-width/ch09_every_width
{ for i in 1 2; do
for shape in "1024 1024 fp32" "4096 1024 fp32" "16384 1024 fp32" "8192 768 fp32" "8192 400 fp32" "32 1024 fp32" "1024 1024 bf16" "8192 1024 bf16" "32768 1024 bf16" "16384 800 bf16" "32768 1024 fp16" "1 1024 bf16" "32 1024 bf16"; do set -- $shape
  for op in rmsnorm layernorm add_rmsnorm add_layernorm; do echo "== $shape $op"; timeout 20 $B --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "ch09_${op}( |@narrow32x[48] |@block2_256x4 )|FAIL" | awk '{print $2, $4, $5, $(NF-2)}'; done
done; done; } > $OUT/ch09-final.log 2>&1
grep -c FAIL $OUT/ch09-final.log; date -u
