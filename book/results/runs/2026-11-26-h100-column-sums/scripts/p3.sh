#!/bin/bash
# ncu: (b) main kernel + sum_partials against (d) one launch, fp32 2048 x 8192 and bf16 16384 x 4096.
exec > >(tee $OUT/p3.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
xz -dc .deps/s16/ch08-new.xz > /tmp/ch08-new && chmod +x /tmp/ch08-new
for shape in "2048 8192 fp32" "16384 4096 bf16"; do set -- $shape
for op in rmsnorm_backward layernorm_backward; do
echo "=== $shape $op"
ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers \
  /tmp/ch08-new --rows $1 --cols $2 --dtype $3 --op $op --kernel "${op}" --quick > /tmp/n.txt 2>&1
grep -E "^  void|duration|bytes_|registers_per|grid_size" /tmp/n.txt | grep -v -A5 AddAtomically | sed 's/(Gradients.*//' | head -60
done; done
