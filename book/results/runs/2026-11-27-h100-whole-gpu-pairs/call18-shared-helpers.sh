#!/bin/bash
# The whole-GPU kernels after the shared load_scale_shift / plus / normalised helpers (new)
# beside the code before them (old): timing alternated, two rounds; test_ch10 on the GPU; and
# compare_peers' copy column on one small row.
exec > >(tee $OUT/c18.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/s26/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "layernorm 1 9437184" "layernorm 16 4194304" "rmsnorm 16 4194304" "layernorm 2 9437184"; do
    set -- $shape
    for b in old new; do
      echo "== round $round $b $1 $2 x $3"; /tmp/v/ch10_$b --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|error|FAIL|wrong"
    done
  done
done
echo "== test_ch10"; timeout 300 /tmp/v/test_ch10 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"
mkdir -p /tmp/vb/tools && cp /tmp/v/normlab /tmp/vb/tools/
echo "== compare_peers"; timeout 120 python3 bench/compare_peers.py --build /tmp/vb --out $OUT/r --only "rmsnorm bf16 1 x 4096" --no-compile 2>&1 | grep -E "timing|copy of the same|normlab  |rc|Error|error" | head
date -u
