#!/bin/bash
# Session 17: the new course sanitizer runs of chapter 09 (block_1024: 70 x 1024 bf16, every kernel and sweep entry of the chapter program) with scripts/sanitize.sh, memcheck and racecheck, on the committed code built for sm_90; and fp32 at the same shape.
exec > >(tee $OUT/x11.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/ch09f; cp .deps/s17/exp/ch09_final $B; chmod +x $B
for tool in memcheck racecheck; do
  bash scripts/sanitize.sh $tool $B --rows 70 --cols 1024 --dtype bf16 --quick > $OUT/$tool-bf16.txt 2>&1; echo "$tool bf16 rc=$?"; tail -2 $OUT/$tool-bf16.txt
  bash scripts/sanitize.sh $tool $B --rows 70 --cols 1024 --dtype fp32 --quick > $OUT/$tool-fp32.txt 2>&1; echo "$tool fp32 rc=$?"; tail -2 $OUT/$tool-fp32.txt
done
date -u
