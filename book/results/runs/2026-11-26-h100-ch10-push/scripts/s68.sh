#!/bin/bash
# s68: the committed chapter 10 cluster kernel (new: st.async exchange, finished a row later)
# against main (base); test_ch10; compute-sanitizer on the new cluster kernel
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/v7.txz -C /tmp/v || exit 1
mkdir -p $OUT/final
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/final/gpu.txt
/tmp/v/new/test_ch10 > $OUT/final/test_ch10.txt 2>&1; echo "rc=$?" >> $OUT/final/test_ch10.txt
for round in 1 2; do
  for s in "512 65536 bf16" "1024 32768 bf16" "128 131072 bf16" "512 65536 fp16" "256 65536 fp32"; do
    set -- $s
    for v in base new; do
      echo "== round $round $v $s" >> $OUT/final/runs.txt
      /tmp/v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster 2>&1 | grep "^10 " >> $OUT/final/runs.txt
    done
  done
done
for tool in memcheck racecheck synccheck; do
  for s in "300 20000 bf16" "61 16389 fp16" "40 32768 fp32" "40 65536 fp32" "5 65541 bf16" "3 70000 fp32"; do
    set -- $s
    echo "== $tool $s" >> $OUT/final/sanitizers.txt
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v/new/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster --quick 2>&1 | grep -v "^$" | tail -6 >> $OUT/final/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $OUT/final/sanitizers.txt
  done
done
date -u >> $OUT/final/gpu.txt
tar -C $OUT -czf $OUT/final.tgz final && rm -rf $OUT/final
