#!/bin/bash
# Chapter 11 with the packed warp split: test_ch11, the 18 shapes twice (JSON), PyTorch's norm +
# matmul, and sanitizer runs of the warp split (every block shape) and the default program.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/c1; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/s21/c1.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
timeout 150 /tmp/b/tests/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$?" >> $R/summary.txt; tail -3 $R/test_ch11.txt >> $R/summary.txt
for i in 1 2; do timeout 200 $P --json $R/ch11-$i.json > $R/ch11-$i.txt 2>&1; echo "ch11 round $i rc=$?" >> $R/summary.txt; done
timeout 200 python3 bench/flashnorm_torch.py > $R/ch11_torch.json 2> $R/ch11_torch.err; echo "torch rc=$?" >> $R/summary.txt
san() { local tool=$1; shift; echo "== $tool $*" >> $R/sanitizers.txt
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $P "$@" 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|Internal" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt; }
for a in "--tokens 64 --k 576 --n 960" "--tokens 16 --k 2048 --n 2560" "--tokens 3 --k 1000 --n 1001" "--tokens 17 --k 4100 --n 72" "--tokens 30 --k 576 --n 960"; do
  for t in memcheck racecheck synccheck; do san $t $a --fused-kernel warp --quick; done
done
for t in memcheck synccheck; do san $t --tokens 64 --k 576 --n 960 --quick; done
date -u >> $R/gpu.txt
cat $R/summary.txt; grep -E "rc=|SUMMARY" $R/sanitizers.txt | paste - - | sort | uniq -c | head; cat $R/ch11-1.txt
tar -C $OUT -czf $OUT/c1.tgz c1
