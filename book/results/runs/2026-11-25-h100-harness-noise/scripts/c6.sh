#!/bin/bash
# Session 6, call 6: does chapter 05's sum-of-squares kernel move when only the placement of its
# buffers moves? An experiment-only copy of the tree allocates PAD bytes before the first workspace.
exec > >(tee $OUT/c6.log) 2>&1
R=$OUT/res; mkdir -p $R
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || tail -5 $R/deps.log
T0=$(date +%s)
mkdir -p /tmp/exp && tar --exclude=./build --exclude=./.deps -cf - . | (cd /tmp/exp && tar xf -)
cd /tmp/exp
sed -i '0,/^#include/s//#include <cstdlib>\n#include/' common/src/runner.cpp
sed -i '/^Workspace::Workspace(const Case& c) : state_(std::make_unique<State>()) {/a\  static DeviceBuffer<unsigned char> pad(std::getenv("PAD") ? std::strtoull(std::getenv("PAD"), nullptr, 10) : 0);' common/src/runner.cpp
grep -n "PAD" common/src/runner.cpp
cmake --preset gpu > $R/cfg.log 2>&1 || tail -30 $R/cfg.log
cmake --build build/gpu -j16 --target ch05_layernorm_welford ch04_fused_float4 > $R/build.log 2>&1 || tail -30 $R/build.log
echo built $(( $(date +%s) - T0 )) s
P5=build/gpu/chapters/05-layernorm-welford/ch05_layernorm_welford; P4=build/gpu/chapters/04-fused-float4/ch04_fused_float4
for i in 1 2 3; do for pad in 0 2097152 16777216 67108864 100663296; do
  echo "pad=$pad $(PAD=$pad $P5 --rows 2048 --cols 8192 | grep -E 'ch05_' | awk '{print $2, $(NF-2)}' | tr '\n' ' ') $(PAD=$pad $P4 --rows 2048 --cols 8192 | grep -E 'fused_float4' | awk '{print $2, $(NF-2)}' | tr '\n' ' ')"
done; done | tee $R/pad.txt
sort $R/pad.txt | awk '{print $1, $3, $5, $7}'
echo total $(( $(date +%s) - T0 )) s
