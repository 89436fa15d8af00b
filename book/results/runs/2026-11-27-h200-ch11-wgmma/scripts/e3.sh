#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/e3; mkdir -p $R; exec > >(tee $R/log.txt) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
if [ ! -x /tmp/b/ch11_new ]; then mkdir -p /tmp/b && tar -xJf .deps/s23/ch11.txz -C /tmp/b || exit 1; fi
cd /tmp/b
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
NL_GROUPS=3 timeout 200 $NCU --cache-control none --clock-control none --set full --import-source no -k regex:fused_kernel --launch-skip 4 --launch-count 1 -o $R/g3 ./ch11_new --tokens 64 --k 2048 --n 2560 --fused-kernel cluster --quick > $R/ncu.log 2>&1; echo "ncu rc=$?"
$NCU -i $R/g3.ncu-rep --page details > $R/details.txt 2>&1
$NCU -i $R/g3.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1
grep -E "Duration|Throughput|Elapsed Cycles|SM Frequency|L2 Hit|Warp Cycles Per Issued" $R/details.txt | head -20
date -u
tar -C $OUT -czf $OUT/e3.tgz e3
