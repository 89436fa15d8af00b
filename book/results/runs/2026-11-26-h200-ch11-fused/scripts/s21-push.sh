#!/bin/bash
# chapter 11 fused, push-to-owner exchange: test, 18 shapes, trace, sanitizers (racecheck on aligned too).
exec > >(tee $OUT/s21.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=/tmp/b21; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B
R=$OUT/res; mkdir -p $R
timeout 120 $B/test/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$? $(tail -2 $R/test_ch11.txt)"
timeout 100 $B/push/ch11_flashnorm > $R/ch11-push.txt 2>&1; echo "ch11 rc=$?"; sed -n 2,17p $R/ch11-push.txt | cut -c1-62
for s in "1 576 960" "64 576 960" "1 2048 2560" "64 2048 2560"; do .deps/carry10/trace $s; done > $R/trace.txt 2>&1; cat $R/trace.txt
for tool in memcheck synccheck; do for a in "--tokens 1 --k 576 --n 960" "--tokens 64 --k 576 --n 960" "--tokens 17 --k 4100 --n 72" "--tokens 3 --k 100 --n 70"; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 --kernel-name kns=fused_kernel $B/push/ch11_flashnorm $a --quick > $R/san-$tool-$(echo $a | tr -d ' -').txt 2>&1; echo "$tool $a rc=$? $(grep -m1 -E 'Internal|Error:' $R/san-$tool-$(echo $a | tr -d ' -').txt)"; done; done
tar -czf $OUT/s21.tgz -C $OUT res
