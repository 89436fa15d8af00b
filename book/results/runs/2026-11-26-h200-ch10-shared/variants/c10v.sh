#!/bin/bash
# Chapter 10's cluster kernel, variants side by side on one machine, interleaved: $@ names them.
exec > >(tee $OUT/c10v.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/c10v && tar -xJf .deps/carry9/c10.txz -C /tmp/c10v || exit 1
for round in 1 2; do
for shape in "512 65536 bf16" "1024 32768 bf16" "256 65536 fp32" "128 131072 bf16"; do
  set -- $shape
  for v in $VARIANTS; do echo "== round $round $v $1 x $2 $3"; /tmp/c10v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster | grep -E "^10 "; done
done; done
date -u
