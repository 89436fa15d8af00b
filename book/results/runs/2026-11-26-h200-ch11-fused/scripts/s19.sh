#!/bin/bash
# chapter 11 fused: float4 DSMEM finish (main) and sums apart from the ring (sep); racecheck on both.
exec > >(tee $OUT/s19.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/b19; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B
R=$OUT/res; mkdir -p $R
timeout 120 $B/test/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$? $(tail -2 $R/test_ch11.txt)"
for v in main sep; do
  timeout 100 $B/$v/ch11_flashnorm > $R/ch11-$v.txt 2>&1; echo "== $v rc=$?"; sed -n 2,17p $R/ch11-$v.txt | cut -c1-62
  for a in "--tokens 17 --k 576 --n 960" "--tokens 1 --k 576 --n 960" "--tokens 64 --k 1000 --n 1001"; do
  timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=fused_kernel $B/$v/ch11_flashnorm $a --quick > $R/rc-$v-$(echo $a | tr -d ' -').txt 2>&1; echo "$v racecheck $a rc=$? $(grep -m1 Internal $R/rc-$v-$(echo $a | tr -d ' -').txt)"; done
done
tar -czf $OUT/s19.tgz -C $OUT res
