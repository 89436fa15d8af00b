#!/bin/bash
# Session 20: many 16-bit rows between what the cluster entry declares (131072 columns) and a MiB: chapter 07 against chapter 10's own choice (the cluster to 262144 bf16 columns, then the split row).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
xz -dc .deps/c20/n.xz > /tmp/normlab; chmod +x /tmp/normlab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for shape in "bf16 256 196608" "bf16 128 262144" "bf16 128 393216"; do set -- $shape; for op in rmsnorm layernorm add_rmsnorm add_layernorm; do
  [ "$3" = 393216 ] && case $op in add_*) continue;; esac
  for k in ch07_$op ch10_$op; do echo "== $op $1 $2 x $3 $k"; timeout 100 /tmp/normlab tour --op $op --dtype $1 --rows $2 --cols $3 --kernel $k 2>&1 | grep -E "ch07_|ch10_|FAIL|rror" | grep -v skipped; done
done; done
date -u
