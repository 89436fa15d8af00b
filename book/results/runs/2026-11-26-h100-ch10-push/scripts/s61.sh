#!/bin/bash
# s61: %globaltimer trace of chapter 10's cluster kernel (held weight) at bf16 512 x 65536
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/t && tar -xJf .deps/carry17/t1.txz -C /tmp/t || exit 1
mkdir -p $OUT/t
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/t/gpu.txt
for op in rmsnorm add_rmsnorm layernorm; do
  NORMLAB_TRACE_FILE=$OUT/t/$op.bin /tmp/t/trace/ch10_huge_rows --rows 512 --cols 65536 --dtype bf16 --op $op --kernel cluster > $OUT/t/$op.txt 2>&1
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
