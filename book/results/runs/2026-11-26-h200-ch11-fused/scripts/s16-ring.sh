#!/bin/bash
# chapter 11's fused kernel with a cp.async ring: stage rows x stages in flight x cluster; test; sanitizers.
exec > >(tee $OUT/s16.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/b16; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B
R=$OUT/res; mkdir -p $R
timeout 120 $B/test/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$?"; tail -3 $R/test_ch11.txt
for v in s64p4c8 s64p3c8 s32p8c8; do
  timeout 100 $B/$v/ch11_flashnorm > $R/ch11-$v.txt 2>&1; echo "== $v rc=$?"; sed -n 2,17p $R/ch11-$v.txt | cut -c1-62
done
for SV in s64p4c8 s64p3c8; do for tool in racecheck; do for a in "--tokens 3 --k 1000 --n 1001" "--tokens 64 --k 576 --n 960" "--tokens 17 --k 4100 --n 72"; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 --kernel-name kns=fused_kernel $B/$SV/ch11_flashnorm $a --quick > $R/san-$tool-$(echo $a | tr -d ' -').txt 2>&1; echo "$SV $tool $a rc=$?"; done; done; done
tar -czf $OUT/s16.tgz -C $OUT res
