#!/bin/bash
# Session 25, call 1: chapter 11's cluster kernel with the pushed reduce-scatter (ch11_push)
# against main's (ch11_base): tests, sanitizers, and timings alternated.
exec > >(tee $OUT/c1.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/s25 && tar -xJf .deps/s25/c1.txz -C /tmp/s25 || exit 1
cd /tmp/s25
timeout 200 ./test_ch11 2>&1 | tail -4
for t in memcheck racecheck synccheck; do
  for a in "--tokens 64 --k 2048 --n 2560" "--tokens 17 --k 4100 --n 72" "--tokens 16 --k 1024 --n 1056" "--tokens 40 --k 576 --n 1000"; do
    echo "== $t $a"; timeout 120 compute-sanitizer --tool $t --error-exitcode 9 ./ch11_push $a --fused-kernel cluster --quick 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|error|Error" | head -3; echo "rc=${PIPESTATUS[0]}"
  done
done
date -u
for r in 1 2; do for b in ch11_base ch11_push; do
  for s in "64 2048 2560" "32 2048 2560" "64 576 960" "64 4096 6144"; do set -- $s
    echo "== $b r$r tokens $1 $2 -> $3"; timeout 60 ./$b --tokens $1 --k $2 --n $3 2>&1 | tail -6
  done; done; done
date -u
