#!/bin/bash
# chapter 11 after removing the partial-pass guards (no behaviour change): test, the 18 shapes, memcheck/synccheck.
exec > >(tee $OUT/s25.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/b25; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/v.txz -C $B
R=$OUT/res; mkdir -p $R
timeout 120 $B/test/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$? $(tail -2 $R/test_ch11.txt)"
timeout 150 $B/clean/ch11_flashnorm > $R/ch11.txt 2>&1; echo "ch11 rc=$?"; cat $R/ch11.txt
for tool in memcheck synccheck; do for a in "--tokens 64 --k 576 --n 960" "--tokens 17 --k 4100 --n 72"; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 --kernel-name kns=fused_kernel $B/clean/ch11_flashnorm $a --quick > /dev/null 2>&1; echo "$tool $a rc=$?"; done; done
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 --kernel-name kns=fused_kernel $B/clean/ch11_flashnorm --tokens 3 --k 1000 --n 1001 --quick > /dev/null 2>&1; echo "racecheck ragged rc=$?"
