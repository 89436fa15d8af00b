#!/bin/bash
# Chapter 08: the committed code (n2), float4 stores of the partial rows only (v4), and v4 + the partial rows discarded from L2 once summed (d1).
exec > >(tee $OUT/e7.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/bins7; mkdir -p $B && tar -xJf .deps/e7/bins.txz -C $B
roof() { awk '/^08/{print $2, $(NF-2)}' | grep -v atomic; }
for shape in "16384 4096 bf16" "4096 8192 bf16" "2048 8192 fp32"; do set -- $shape
  for i in 1 2 3; do for v in n2 v4 d1; do
    echo "$1x$2-$3 $v $($B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 2>&1 | roof | tr '\n' ' ')"
  done; done
done
date -u
for v in n2 v4 d1; do
  ncu --cache-control none --kernel-name-base mangled -k "regex:15StorePartialRow" --launch-skip 5 --launch-count 1 --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum $B/$v/ch08_backward --rows 16384 --cols 4096 --dtype bf16 --op layernorm_backward > $OUT/ncu-$v.txt 2>&1
  echo "== $v layernorm_backward bf16 16384 x 4096"; grep -E "^  [a-zA-Z_]|dram__bytes|gpu__time" $OUT/ncu-$v.txt | sed -E 's/\(Gradients.*//; s/_ZN7normlab4ch08//' | cut -c1-110
done
date -u
