#!/bin/bash
# Session 6, call 8: the same kernels with a gap (GAP bytes) allocated before each result tensor,
# so that only the distance between x and y changes.
exec > >(tee $OUT/c7.log) 2>&1
R=$OUT/res; mkdir -p $R
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || tail -5 $R/deps.log
T0=$(date +%s)
( cmake -S .deps/old -B /tmp/oldb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNORMLAB_BUILD_BOOK=OFF -DNORMLAB_BUILD_BENCHMARKS=OFF > $R/old-cfg.log 2>&1 && cmake --build /tmp/oldb -j4 --target ch05_layernorm_welford > $R/old-build.log 2>&1 ) &
OLD=$!
rm -rf /tmp/exp3; mkdir -p /tmp/exp3 && tar --exclude=./build --exclude=./.deps -cf - . | (cd /tmp/exp3 && tar xf -)
cd /tmp/exp3
cp $OLDPWD/.deps/run/random-seed.cpp.txt common/src/random.cpp
grep -c SEEDX common/src/random.cpp
cmake --preset gpu > $R/cfg.log 2>&1 || tail -30 $R/cfg.log
cmake --build build/gpu -j16 --target ch05_layernorm_welford ch04_fused_float4 > $R/build.log 2>&1 || tail -30 $R/build.log
echo built $(( $(date +%s) - T0 )) s
P5=build/gpu/chapters/05-layernorm-welford/ch05_layernorm_welford; P4=build/gpu/chapters/04-fused-float4/ch04_fused_float4
for i in 1 2 3; do for seed in 0 1 2 3 4; do
  echo "seed=$seed $(SEEDX=$seed $P5 --rows 2048 --cols 8192 | grep -E 'ch05_' | awk '{print $(NF-2)}' | tr '\n' ' ') $(SEEDX=$seed $P4 --rows 2048 --cols 8192 | grep -E 'fused_float4' | awk '{print $(NF-2)}' | tr '\n' ' ')"
done; done > $R/seed.txt
wait $OLD
for i in 1 2 3; do echo "old $(/tmp/oldb/chapters/05-layernorm-welford/ch05_layernorm_welford --rows 2048 --cols 8192 | grep -E 'ch05_' | awk '{print $(NF-2)}' | tr '\n' ' ')"; echo "new $($P5 --rows 2048 --cols 8192 | grep -E 'ch05_' | awk '{print $(NF-2)}' | tr '\n' ' ')"; done >> $R/seed.txt
sort -s -k1,1 $R/seed.txt
echo total $(( $(date +%s) - T0 )) s
