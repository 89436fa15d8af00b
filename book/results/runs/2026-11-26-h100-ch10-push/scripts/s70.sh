#!/bin/bash
# s70: rows claimed from a counter by each cluster's rank 0 (claim) against the committed
# kernel (new, df705ba): test_ch10, two rounds at the wide shapes, sanitizers on claim
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/v8.txz -C /tmp/v || exit 1
mkdir -p $OUT/v
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/v/gpu.txt
/tmp/v/claim/test_ch10 > $OUT/v/test_ch10-claim.txt 2>&1; echo "rc=$?" >> $OUT/v/test_ch10-claim.txt
for round in 1; do
  for s in "512 65536 bf16" "1024 32768 bf16" "256 65536 fp32" "4096 16384 bf16"; do
    set -- $s
    for v in new claim; do
      echo "== round $round $v $s" >> $OUT/v/runs.txt
      /tmp/v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster 2>&1 | grep "^10 " >> $OUT/v/runs.txt
    done
  done
done
for tool in memcheck racecheck synccheck; do
  for s in "300 20000 bf16" "40 32768 fp32" "3 70000 fp32"; do
    set -- $s
    echo "== $tool $s" >> $OUT/v/san.txt
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v/claim/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster --quick 2>&1 | grep -v "^$" | tail -2 >> $OUT/v/san.txt; echo "rc=${PIPESTATUS[0]}" >> $OUT/v/san.txt
  done
done
tar -C $OUT -czf $OUT/v.tgz v && rm -rf $OUT/v
