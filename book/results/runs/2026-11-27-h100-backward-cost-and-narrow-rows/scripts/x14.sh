#!/bin/bash
# Session 17: the one-reduction LayerNorm statistics for 2-vector blocks (committed, "new") against the same build with them for 4-vector blocks only ("twopass"), on rows whose blocks have a warp count that is not a power of two (the warps then merge in order) and on others, alternated, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/x14.log
for b in new twopass; do cp .deps/s17/exp/ch09_$b /tmp/ch09_$b; chmod +x /tmp/ch09_$b; done
for i in 1 2; do
for shape in "16384 5120 bf16 add_layernorm" "16384 6144 bf16 add_layernorm" "8192 3072 bf16 add_layernorm" "2048 3072 fp32 add_layernorm" "4096 2048 fp32 add_layernorm" "8192 768 fp32 layernorm" "16384 768 fp32 add_layernorm" "8192 1024 bf16 layernorm"; do set -- $shape
  for b in new twopass; do echo "== $shape $b" >> $OUT/x14.log; /tmp/ch09_$b --rows $1 --cols $2 --dtype $3 --op $4 --kernel "ch09_$4" 2>&1 | grep -E "ch09_$4 |FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $OUT/x14.log; done
done; done
date -u >> $OUT/x14.log
awk '/^==/{h=$0; next} /ch09/{print h, "::", $0}' $OUT/x14.log
