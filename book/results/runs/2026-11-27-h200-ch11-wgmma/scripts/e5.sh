#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/e5; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
rm -rf /tmp/b; mkdir -p /tmp/b && tar -xJf .deps/s23/ch11.txz -C /tmp/b || exit 1
cd /tmp/b
timeout 120 ./test_ch11_new 2>&1 | tail -3
for shape in "64 2048 2560" "32 2048 2560" "16 2048 2560" "64 2048 2560"; do
  set -- $shape
  echo "=== tokens $1 K $2 N $3"
  ./ch11_old_s --tokens $1 --k $2 --n $3 --fused-kernel cluster | grep -E "^ +[0-9]+ ->|FAILED|rror"
  for g in 2 3; do echo "NL_GROUPS=$g"; NL_GROUPS=$g ./ch11_new --tokens $1 --k $2 --n $3 --fused-kernel cluster 2>&1 | grep -E "^ +[0-9]+ ->|FAILED|rror"; done
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
NL_GROUPS=3 timeout 200 $NCU --cache-control none --clock-control none --set full --import-source no -k regex:fused_kernel --launch-skip 4 --launch-count 1 -o $R/g3 ./ch11_new --tokens 64 --k 2048 --n 2560 --fused-kernel cluster --quick > $R/ncu.log 2>&1; echo "ncu rc=$?"
$NCU -i $R/g3.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1
$NCU -i $R/g3.ncu-rep --page details > $R/details.txt 2>&1
grep -E "Duration|L2 Cache Throughput|Warp Cycles Per Issued" $R/details.txt | head
date -u
tar -C $OUT -czf $OUT/e5.tgz e5
