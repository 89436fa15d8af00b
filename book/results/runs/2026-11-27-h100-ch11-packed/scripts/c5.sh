#!/bin/bash
# Chapter 11 with the packed warp split (committed code): test_ch11, the 18 shapes twice (JSON),
# PyTorch's norm + matmul, and course.json's chapter 11 sanitizer runs.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/c6; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/s21/c5.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
timeout 150 /tmp/b/tests/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$?" >> $R/summary.txt; tail -2 $R/test_ch11.txt >> $R/summary.txt
for i in 1 2; do timeout 200 $P --json $R/ch11-$i.json > $R/ch11-$i.txt 2>&1; echo "ch11 round $i rc=$?" >> $R/summary.txt; done
timeout 200 python3 bench/flashnorm_torch.py > $R/ch11_torch.json 2> $R/ch11_torch.err; echo "torch rc=$?" >> $R/summary.txt
san() { local tool=$1; shift; echo "== $tool $*" >> $R/sanitizers.txt
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $P "$@" > $R/san.tmp 2>&1; rc=$?
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|Internal|Race reported" $R/san.tmp | head -3 >> $R/sanitizers.txt; echo "rc=$rc" >> $R/sanitizers.txt; }
for a in "--tokens 3 --k 1000 --n 1001" "--tokens 16 --k 576 --n 960 --fused-kernel warp" "--tokens 64 --k 576 --n 960 --fused-kernel warp" "--tokens 5 --k 1056 --n 200 --fused-kernel warp" "--tokens 17 --k 4100 --n 72"; do
  for t in memcheck racecheck synccheck; do san $t $a --quick; done
done
for t in memcheck synccheck; do san $t --tokens 64 --k 576 --n 960 --quick; done
for t in memcheck racecheck; do san $t --tokens 65 --k 576 --n 960 --quick; done
date -u >> $R/gpu.txt
cat $R/summary.txt; grep -E "rc=" $R/sanitizers.txt | sort | uniq -c; cat $R/ch11-1.txt; grep -E "^ +[0-9]+ ->" $R/ch11-2.txt
tar -C $OUT -czf $OUT/c6.tgz c6
