#!/bin/bash
# Session 20: chapter 08's column sums added in a cluster first (NL_CLUSTER=2,4,8) against the committed grid (0), alternated, three rounds.
exec > >(tee $OUT/a1.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
xz -dc .deps/c20/ch08_cl.xz > /tmp/ch08_cl; chmod +x /tmp/ch08_cl
for i in 1 2 3; do
for shape in "2048 8192 fp32" "4096 8192 bf16" "16384 4096 bf16" "8192 8192 fp32" "1000 12288 bf16" "300 4096 fp32"; do set -- $shape
  for c in 0 2 4 8; do echo "== $shape c$c"; NL_CLUSTER=$c timeout 60 /tmp/ch08_cl --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |FAIL|rror" | grep -v atomic; done
done; done
date -u
