#!/bin/bash
# Session 6, call 7: the same kernels with a gap (GAP bytes) allocated before each result tensor,
# so that only the distance between x and y changes.
exec > >(tee $OUT/c7.log) 2>&1
R=$OUT/res; mkdir -p $R
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || tail -5 $R/deps.log
T0=$(date +%s)
rm -rf /tmp/exp2; mkdir -p /tmp/exp2 && tar --exclude=./build --exclude=./.deps -cf - . | (cd /tmp/exp2 && tar xf -)
cd /tmp/exp2
cp /work/main/.deps/run/runner-gap.cpp.txt common/src/runner.cpp 2>/dev/null || cp $OLDPWD/.deps/run/runner2.cpp common/src/runner.cpp
grep -c GAP common/src/runner.cpp
cmake --preset gpu > $R/cfg.log 2>&1 || tail -30 $R/cfg.log
cmake --build build/gpu -j16 --target ch05_layernorm_welford ch04_fused_float4 > $R/build.log 2>&1 || tail -30 $R/build.log
echo built $(( $(date +%s) - T0 )) s
P5=build/gpu/chapters/05-layernorm-welford/ch05_layernorm_welford; P4=build/gpu/chapters/04-fused-float4/ch04_fused_float4
for i in 1 2 3; do for gap in none 2097152 4194304 6291456 8388608 33554432; do
  if [ $gap = none ]; then E="env -u GAP"; else E="env GAP=$gap"; fi
  echo "gap=$gap $($E $P5 --rows 2048 --cols 8192 | grep -E 'ch05_' | awk '{print $(NF-2)}' | tr '\n' ' ') $($E $P4 --rows 2048 --cols 8192 | grep -E 'fused_float4' | awk '{print $(NF-2)}' | tr '\n' ' ')"
done; done > $R/gap.txt
sort -s -k1,1 $R/gap.txt
echo total $(( $(date +%s) - T0 )) s
