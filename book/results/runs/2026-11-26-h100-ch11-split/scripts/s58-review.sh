#!/bin/bash
# Chapter 11 after the review's two mends (accumulate_squares, tiles_of): test_ch11, course.json's
# sanitizer runs of the program, and the 18 shapes once.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s58; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/b && tar -xJf .deps/carry15/s50.txz -C /tmp/b || exit 1
P=/tmp/b/chapters/11-flashnorm/ch11_flashnorm
timeout 150 /tmp/b/tests/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$?" >> $R/summary.txt; tail -2 $R/test_ch11.txt >> $R/summary.txt
san() { local tool=$1; shift; echo "== $tool $*" >> $R/sanitizers.txt
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $P "$@" 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL|Internal" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt; }
for t in memcheck racecheck synccheck; do san $t --tokens 3 --k 1000 --n 1001 --quick; done
for t in memcheck synccheck; do san $t --tokens 64 --k 576 --n 960 --quick; done
for t in memcheck racecheck synccheck; do san $t --tokens 16 --k 576 --n 960 --fused-kernel warp --quick; done
for t in memcheck racecheck synccheck; do san $t --tokens 17 --k 4100 --n 72 --quick; done
for t in memcheck racecheck; do san $t --tokens 65 --k 576 --n 960 --quick; done
timeout 200 $P > $R/ch11.txt 2>&1; echo "ch11 rc=$?" >> $R/summary.txt
date -u >> $R/gpu.txt
