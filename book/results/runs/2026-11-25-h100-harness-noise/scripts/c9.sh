#!/bin/bash
# Session 6, call 9: does a longer warm-up (30 repetitions instead of 3) close the gap between
# the pre-harness and the current chapter 05 program? Experiment-only copies of both trees.
exec > >(tee $OUT/c9.log) 2>&1
R=$OUT/res; mkdir -p $R
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || tail -5 $R/deps.log
T0=$(date +%s)
ROOT=$PWD
rm -rf /tmp/oldw && cp -a .deps/old /tmp/oldw && sed -i 's/int warmup = 3;/int warmup = 30;/' /tmp/oldw/common/include/normlab/timing.hpp && grep -c "warmup = 30" /tmp/oldw/common/include/normlab/timing.hpp
( for t in old oldw; do S=.deps/old; [ $t = oldw ] && S=/tmp/oldw; cmake -S $S -B /tmp/b-$t -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNORMLAB_BUILD_BOOK=OFF -DNORMLAB_BUILD_BENCHMARKS=OFF > $R/cfg-$t.log 2>&1 && cmake --build /tmp/b-$t -j4 --target ch05_layernorm_welford > $R/build-$t.log 2>&1; done ) &
OLD=$!
rm -rf /tmp/neww; mkdir -p /tmp/neww && tar --exclude=./build --exclude=./.deps -cf - . | (cd /tmp/neww && tar xf -)
sed -i 's/int warmup = 3;/int warmup = 30;/' /tmp/neww/common/include/normlab/timing.hpp; grep -c "warmup = 30" /tmp/neww/common/include/normlab/timing.hpp
( cd /tmp/neww && cmake --preset gpu > $R/cfg-neww.log 2>&1 && cmake --build build/gpu -j6 --target ch05_layernorm_welford > $R/build-neww.log 2>&1 ) &
NEWW=$!
cmake --preset gpu > $R/cfg-new.log 2>&1 && cmake --build build/gpu -j6 --target ch05_layernorm_welford > $R/build-new.log 2>&1
wait $OLD $NEWW
echo built $(( $(date +%s) - T0 )) s
P=chapters/05-layernorm-welford/ch05_layernorm_welford
declare -A B=([old]=/tmp/b-old/$P [oldw]=/tmp/b-oldw/$P [new]=build/gpu/$P [neww]=/tmp/neww/build/gpu/$P)
for i in 1 2 3 4; do for t in old new oldw neww; do echo "$t $(${B[$t]} --rows 2048 --cols 8192 | grep -E 'ch05_' | awk '{print $(NF-2)}' | tr '\n' ' ')"; done; done > $R/warmup.txt
sort -s -k1,1 $R/warmup.txt
echo total $(( $(date +%s) - T0 )) s
