#!/bin/bash
# s62: chapter 10's cluster exchange by st.async + mbarrier (push, pushnf: without the last
# cluster barrier) against the held-weight build with cluster.sync (held); tests, sanitizers
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/v2.txz -C /tmp/v || exit 1
mkdir -p $OUT/v
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/v/gpu.txt
for v in push pushnf; do /tmp/v/$v/test_ch10 > $OUT/v/test_ch10-$v.txt 2>&1; echo "rc=$?" >> $OUT/v/test_ch10-$v.txt; done
for round in 1 2 3; do
  for s in "512 65536 bf16" "1024 32768 bf16" "128 131072 bf16" "512 65536 fp16" "256 65536 fp32"; do
    set -- $s
    for v in held push pushnf; do
      echo "== round $round $v $s" >> $OUT/v/runs.txt
      /tmp/v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster 2>&1 | grep "^10 " >> $OUT/v/runs.txt
    done
  done
done
for v in pushnf; do
for tool in memcheck racecheck synccheck; do
  for s in "300 20000 bf16 cluster" "61 16389 fp16 ch10_" "40 65536 fp32 cluster"; do
    set -- $s
    echo "== $v $tool $s" >> $OUT/v/sanitizers.txt
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel $4 --quick 2>&1 | tail -4 >> $OUT/v/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $OUT/v/sanitizers.txt
  done
done
done
date -u >> $OUT/v/gpu.txt
tar -C $OUT -czf $OUT/v.tgz v && rm -rf $OUT/v
