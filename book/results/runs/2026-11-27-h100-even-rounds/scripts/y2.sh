#!/bin/bash
# Session 18: even rounds (ch08_even) against the grid of min(rows, fit) (ch08_e0), every op, several shapes, two rounds; then ncu durations of the row kernel and the column sums, fp32 2048 x 8192.
exec > >(tee $OUT/y2.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for e in e0 even; do cp .deps/s18/exp/ch08_$e /tmp/; chmod +x /tmp/ch08_$e; done
for i in 1 2; do
for shape in "2048 8192 fp32" "16384 4096 bf16" "4096 8192 bf16" "8192 576 bf16" "32768 768 bf16" "4097 1025 fp16" "1000 12288 bf16" "300 4096 fp32"; do set -- $shape
  for e in e0 even; do echo "== $shape $e"; timeout 60 /tmp/ch08_$e --rows $1 --cols $2 --dtype $3 | grep -E "^ *08 |FAIL|rror" | grep -v atomic; done
done; done
date -u
for op in layernorm_backward rmsnorm_backward; do
ncu --clock-control none --cache-control none --kernel-name-base demangled -k regex:"StorePartialRow|sum_partials" -c 8 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum /tmp/ch08_even --rows 2048 --cols 8192 --dtype fp32 --op $op --kernel ch08_$op 2>&1 | grep -E "backward_rows|sum_partials|gpu__time|dram__|lts__" | head -40
done
date -u
