#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/e2; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b && tar -xJf .deps/s23/ch11.txz -C /tmp/b || exit 1
cd /tmp/b
timeout 120 ./test_ch11_new 2>&1 | tail -4
for shape in "64 2048 2560" "32 2048 2560" "16 2048 2560" "64 2048 2560"; do
  set -- $shape
  echo "=== tokens $1 K $2 N $3"
  ./ch11_old_s --tokens $1 --k $2 --n $3 --fused-kernel cluster | grep -E "^ +[0-9]+ ->|FAILED|rror"
  for g in 1 3; do echo "NL_GROUPS=$g"; NL_GROUPS=$g ./ch11_new --tokens $1 --k $2 --n $3 --fused-kernel cluster 2>&1 | grep -E "^ +[0-9]+ ->|FAILED|rror"; done
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for t in 64 16; do
NL_GROUPS=3 timeout 200 $NCU --set full -k regex:fused_kernel --launch-skip 2 --launch-count 1 --page details ./ch11_new --tokens $t --k 2048 --n 2560 --fused-kernel cluster --quick > $R/ncu-$t.txt 2>&1; echo "ncu $t rc=$?"
done
grep -E "Duration|Throughput|Registers|Achieved Occupancy|Waves|Stall|cycles being stalled|Issue Slots|L2 Hit|Elapsed Cycles|SM Frequency" $R/ncu-64.txt | head -40
date -u
tar -C $OUT -czf $OUT/e2.tgz e2
