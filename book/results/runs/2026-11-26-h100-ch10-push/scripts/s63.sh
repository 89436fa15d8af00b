#!/bin/bash
# s63: trace of the st.async exchange (no last barrier) at bf16 512 x 65536; synccheck of the
# 16-block clusters with and without the last cluster barrier
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/v3.txz -C /tmp/v || exit 1
mkdir -p $OUT/t
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/t/gpu.txt
for op in rmsnorm layernorm add_rmsnorm; do
  NORMLAB_TRACE_FILE=$OUT/t/$op.bin /tmp/v/tracepush/ch10_huge_rows --rows 512 --cols 65536 --dtype bf16 --op $op --kernel cluster > $OUT/t/$op.txt 2>&1
done
for v in push pushnf; do
  echo "== $v plain 40 65536 fp32" >> $OUT/t/sync.txt
  /tmp/v/$v/ch10_huge_rows --rows 40 --cols 65536 --dtype fp32 --kernel cluster --quick >> $OUT/t/sync.txt 2>&1; echo "rc=$?" >> $OUT/t/sync.txt
  for op in rmsnorm layernorm add_rmsnorm add_layernorm; do
    echo "== $v synccheck 40 65536 fp32 $op" >> $OUT/t/sync.txt
    timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 /tmp/v/$v/ch10_huge_rows --rows 40 --cols 65536 --dtype fp32 --op $op --kernel cluster --quick 2>&1 | tail -5 >> $OUT/t/sync.txt; echo "rc=${PIPESTATUS[0]}" >> $OUT/t/sync.txt
  done
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
