#!/bin/bash
# fp32 rows of 4097-8192 columns: committed (512 threads x 4 vectors) against t1024 (1024 threads x 2 vectors; LayerNorm without loading ahead: it spilled), alternated.
exec > >(tee $OUT/p6.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for b in new t1024; do xz -dc .deps/s16/ch08-$b.xz > /tmp/ch08-$b && chmod +x /tmp/ch08-$b; done
for i in 1 2 3; do
for shape in "2048 8192 fp32" "8192 8192 fp32" "4096 5120 fp32"; do set -- $shape
  for b in new t1024; do echo "== $shape $b"; /tmp/ch08-$b --rows $1 --cols $2 --dtype $3 | grep -E "ch08_|FAIL" | grep -v atomic | awk '{print $2, $3, $(NF-2)}'; done
done; done
date -u
