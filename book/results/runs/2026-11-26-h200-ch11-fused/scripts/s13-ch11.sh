#!/bin/bash
# chapter 11's cluster + tensor-core fused kernel: the 18 shapes, the GPU test, sanitizers.
exec > >(tee $OUT/s13.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/b13; mkdir -p $B && tar -xJf .deps/carry9/ch11.txz -C $B
R=$OUT/res; mkdir -p $R
cd $B
timeout 120 ./tests/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$?"; tail -5 $R/test_ch11.txt
timeout 200 ./chapters/11-flashnorm/ch11_flashnorm --json $R/ch11.json > $R/ch11.txt 2>&1; echo "ch11 rc=$?"; cat $R/ch11.txt
for tool in memcheck racecheck synccheck; do for a in "--tokens 3 --k 1000 --n 1001" "--tokens 64 --k 576 --n 960" "--tokens 17 --k 4100 --n 72" "--tokens 1 --k 2048 --n 2560"; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 ./chapters/11-flashnorm/ch11_flashnorm $a --quick > $R/san-$tool-$(echo $a | tr -d ' -').txt 2>&1; echo "$tool $a rc=$?"; done; done
tar -czf $OUT/s13.tgz -C $OUT res
