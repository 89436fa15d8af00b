#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Call D: the fp32 peer table, then bench_overhead with Liger and QuACK installed.
L=$OUT/logs; mkdir -p $L
export PYTHONPATH=$(cat /tmp/pythonpath)
start=$(date +%s)
python3 bench/compare_peers.py --build build/gpu --out $OUT/r-fp32 --require-torch --only fp32 > $L/peers-fp32.txt 2>&1
echo "fp32 rc=$? in $(( $(date +%s) - start )) s" | tee -a $L/times.txt
tail -4 $L/peers-fp32.txt
NORMLAB_CAPI=$PWD/build/gpu/python/libnormlab_capi.so python3 python/bench_overhead.py > $L/overhead-1.txt 2>&1
NORMLAB_CAPI=$PWD/build/gpu/python/libnormlab_capi.so python3 python/bench_overhead.py > $L/overhead-2.txt 2>&1
tail -10 $L/overhead-1.txt
tar -C $OUT -czf $OUT/d.tgz logs r-fp32
