#!/bin/bash
# The pairs kernel as committed (after the stash_slot and grid_slice helpers): test_ch10 on the GPU, the course's sanitizer runs of it, and
# the lean kernels (the last experiment binary with NL_EXP=0, which is main's launcher) beside
# it, two rounds alternated.
exec > >(tee $OUT/c11.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/c10 && tar -xJf .deps/s26/bins.txz -C /tmp/c10
OLD=.deps/s26/ch10_exp; NEW=/tmp/c10/ch10_new
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for round in 1 2; do
  for shape in "layernorm 2 9437184" "rmsnorm 2 9437184" "layernorm 16 6291456" "layernorm 1 9437184"; do
    set -- $shape
    echo "== round $round main $1 $2 x $3"; NL_EXP=0 $OLD --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|error|FAIL|wrong"
    echo "== round $round pairs $1 $2 x $3"; $NEW --op $1 --rows $2 --cols $3 --dtype fp32 --kernel whole_gpu 2>&1 | grep -E "whole_gpu|error|FAIL|wrong"
  done
done
date -u
for tool in memcheck racecheck synccheck; do
  echo "== $tool ch10_huge_rows --rows 5 --cols 4600000 --op layernorm --kernel whole_gpu --quick"
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $NEW --rows 5 --cols 4600000 --op layernorm --kernel whole_gpu --quick 2>&1 | tail -2
  echo "rc=${PIPESTATUS[0]}"
done
date -u
echo "== test_ch10"
timeout 330 /tmp/c10/test_ch10 2>&1 | tail -6; echo "rc=${PIPESTATUS[0]}"
date -u
