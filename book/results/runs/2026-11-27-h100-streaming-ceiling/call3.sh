#!/bin/bash
# normlab's own harness (memset flush before each repetition, as every chapter program times):
# its copies beside its RMSNorm at bf16 512 x 65536, two rounds.
exec > >(tee $OUT/c3.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
B=.deps/s26
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  echo "== round $round"
  $B/ch00_roofline --op copy --rows 512 --cols 65536 --dtype bf16 || $B/ch00_roofline --op copy --rows 512 --cols 32768 --dtype fp32
  $B/ch10_huge_rows --op rmsnorm --rows 512 --cols 65536 --dtype bf16
done
date -u
