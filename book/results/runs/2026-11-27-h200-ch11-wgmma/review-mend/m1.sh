#!/bin/bash
# Session 23, the review's mend of fused.cu (one call struct, shared load helpers): the gpu preset's chapter 11 tests, and the cluster kernel before/after alternated.
R=$OUT/m1; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || { tail -20 $R/deps.log; exit 1; }
cmake --preset gpu > $R/configure.log 2>&1 || { tail -30 $R/configure.log; exit 1; }
timeout 200 cmake --build --preset gpu -j 16 --target test_ch11 ch11_flashnorm normlab_ch11 > $R/build.log 2>&1; echo "build rc=$?"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
timeout 150 ctest --preset gpu -j 8 -R "ch11" --output-on-failure > $R/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "tests passed|\*\*\*|Failed|Skipped" $R/ctest.log | tail -8
mkdir -p /tmp/ab && tar -xJf .deps/s23/ab.txz -C /tmp/ab
for t in 64 32 16; do for b in head mend head mend; do echo "$b $t"; /tmp/ab/ch11_$b --tokens $t --k 2048 --n 2560 --fused-kernel cluster | grep -E "^ +[0-9]+ ->|FAIL"; done; done
date -u
tar -C $OUT -czf $OUT/m1.tgz m1
