#!/bin/bash
# s67: moments exchanged once a row (mlag) against the lagged float exchange (lag) and pushnf
# copied ahead; lag4: 4 stages, two ahead; both without the held weight) against pushnf
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/v6.txz -C /tmp/v || exit 1
mkdir -p $OUT/v
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/v/gpu.txt
/tmp/v/mlag/test_ch10 > $OUT/v/test_ch10-mlag.txt 2>&1; echo "rc=$?" >> $OUT/v/test_ch10-mlag.txt
for round in 1 2; do
  for s in "512 65536 bf16" "1024 32768 bf16" "128 131072 bf16" "256 65536 fp32"; do
    set -- $s
    for v in pushnf lag mlag; do
      echo "== round $round $v $s" >> $OUT/v/runs.txt
      /tmp/v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster 2>&1 | grep "^10 " >> $OUT/v/runs.txt
    done
  done
done
for tool in racecheck synccheck memcheck; do
for s in "mlag 300 20000 bf16 cluster" "mlag 40 32768 fp32 cluster" "mlag 61 16389 fp16 ch10_"; do
  set -- $s
  echo "== $tool $s" >> $OUT/v/san.txt
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v/$1/ch10_huge_rows --rows $2 --cols $3 --dtype $4 --kernel $5 --quick 2>&1 | tail -2 >> $OUT/v/san.txt; echo "rc=${PIPESTATUS[0]}" >> $OUT/v/san.txt
done
done
tar -C $OUT -czf $OUT/v.tgz v && rm -rf $OUT/v
