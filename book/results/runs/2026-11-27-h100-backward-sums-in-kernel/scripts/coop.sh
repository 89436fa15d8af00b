#!/bin/bash
# Issue 13 experiment: chapter 08's column sums inside the row kernel after a grid-wide barrier (cooperative launch, NL_COOP=1) against the committed separate launch.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=.deps/s21/coop
for i in 1 2 3; do
for shape in "2048 8192 fp32" "8192 8192 fp32"; do set -- $shape
  echo "== $shape base"; $B/ch08_base --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |ch08_|FAIL" | grep -v atomic
  echo "== $shape coop"; NL_COOP=1 $B/ch08_coop --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |ch08_|FAIL" | grep -v atomic
done; done
date -u
