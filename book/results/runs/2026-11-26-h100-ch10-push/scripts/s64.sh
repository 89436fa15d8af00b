#!/bin/bash
# s64: a cluster per row (no persistent loop; allrows, allwide: 4 blocks of 512) against
# pushnf and main (base); synccheck of base and pushnf on 8- and 16-block clusters
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/v4.txz -C /tmp/v || exit 1
mkdir -p $OUT/v
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $OUT/v/gpu.txt
for round in 1 2; do
  for s in "512 65536 bf16" "1024 32768 bf16" "128 131072 bf16" "256 65536 fp32"; do
    set -- $s
    for v in base pushnf allrows allwide; do
      echo "== round $round $v $s" >> $OUT/v/runs.txt
      /tmp/v/$v/ch10_huge_rows --rows $1 --cols $2 --dtype $3 --kernel cluster 2>&1 | grep "^10 " >> $OUT/v/runs.txt
    done
  done
done
for s in "base 40 65536 fp32" "pushnf 40 65536 fp32" "pushnf 40 32768 fp32" "pushnf 20 131072 bf16" "allrows 40 65536 fp32" "base 20 131072 bf16"; do
  set -- $s
  echo "== synccheck $s" >> $OUT/v/sync.txt
  timeout 200 compute-sanitizer --tool synccheck --error-exitcode 9 /tmp/v/$1/ch10_huge_rows --rows $2 --cols $3 --dtype $4 --op rmsnorm --kernel cluster --quick 2>&1 | tail -3 >> $OUT/v/sync.txt; echo "rc=${PIPESTATUS[0]}" >> $OUT/v/sync.txt
done
tar -C $OUT -czf $OUT/v.tgz v && rm -rf $OUT/v
