#!/bin/bash
# Chapter 11 with the warp-split kernel for few tokens through a short K: test_ch11, the 18
# shapes twice (JSON), the K threshold probed (both kernels at K 768/1024/1536), PyTorch's
# norm + matmul, and course.json's sanitizer runs of the program.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s50; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/carry15/s50.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
timeout 150 /tmp/b/tests/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$?" >> $R/summary.txt; tail -2 $R/test_ch11.txt >> $R/summary.txt
for i in 1 2; do timeout 200 $P --json $R/ch11-$i.json > $R/ch11-$i.txt 2>&1; echo "ch11 round $i rc=$?" >> $R/summary.txt; done
for k in 768 1024 1536; do for n in 960 2560; do for t in 1 16; do
  timeout 60 $P --tokens $t --k $k --n $n 2>&1 | grep -E "^ *[0-9]+ ->|FAIL" >> $R/threshold.txt
done; done; done
timeout 200 python3 bench/flashnorm_torch.py > $R/ch11_torch.json 2> $R/ch11_torch.err; echo "torch rc=$?" >> $R/summary.txt
san() { local tool=$1; shift; echo "== $tool $*" >> $R/sanitizers.txt
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $P "$@" 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|Internal" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt; }
for t in memcheck racecheck synccheck; do san $t --tokens 3 --k 1000 --n 1001 --quick; done
for t in memcheck synccheck; do san $t --tokens 64 --k 576 --n 960 --quick; done
for t in memcheck racecheck synccheck; do san $t --tokens 16 --k 576 --n 960 --fused-kernel warp --quick; done
for t in memcheck racecheck synccheck; do san $t --tokens 17 --k 4100 --n 72 --quick; done
for t in memcheck racecheck; do san $t --tokens 65 --k 576 --n 960 --quick; done
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s50.tgz s50
