#!/bin/bash
# Session 17: LayerNorm on rows that narrow32x4 fills exactly (128 chunks), narrow32x4 (one-reduction statistics) against block2_256x4 with chapter 07's two reductions (NL_BAL2 unset) and with the one-reduction statistics (NL_BAL2=1); two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/x10.log
B=/tmp/ch09b2; cp .deps/s17/exp/ch09_bal2 $B; chmod +x $B
for i in 1 2; do
for shape in "8192 1024 bf16 layernorm" "16384 1024 bf16 layernorm" "32768 1024 bf16 layernorm" "65536 1024 bf16 layernorm" "32768 1024 fp16 layernorm" "32768 512 fp32 layernorm" "8192 512 fp32 layernorm" "32768 1024 bf16 add_layernorm" "16384 4096 bf16 add_layernorm" "4096 8192 bf16 add_layernorm"; do set -- $shape
  for b in "" 1; do echo "== $shape bal2=$b" >> $OUT/x10.log; $( [ -n "$b" ] && echo "env NL_BAL2=1" || echo "env -u NL_BAL2" ) $B --rows $1 --cols $2 --dtype $3 --op $4 2>&1 | grep -E "ch09_$4( |@narrow32x4 |@block2_256x4 )|FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $OUT/x10.log; done
done; done
date -u >> $OUT/x10.log
cat $OUT/x10.log | awk '/^==/{h=$0; next} {printf "%s :: %s\n", h, $0}' | sed 's/ bal2= / bal2=0 /' 
