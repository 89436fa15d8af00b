#!/bin/bash
# Call C9: how repeatable the tuner's pick is. The CPU build's normlab tool (carried, xz) tunes
# the same 30 points into fresh tables: twice with 15 repetitions, twice with 30.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
exec > >(tee $L/c9.txt) 2>&1
xz -dc .deps/tool/normlab.xz > /tmp/normlab && chmod +x /tmp/normlab
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
G="--ops rmsnorm,layernorm --dtypes bf16 --rows 1,32,256 --widths 576,1024,2048,4096,8192"
for r in 15a 15b 30a 30b; do
  /tmp/normlab tune --out /tmp/t$r --fresh $G --repetitions ${r%?} > $L/tune$r.log 2>&1; echo "tune $r rc=$? at $(( $(date +%s) - s ))s"
  cp /tmp/t$r/*.tsv $L/t$r.tsv
done
P=book/results/runs/2026-12-04-h200-small-rows/repeat.py
python3 $P $L/t15a.tsv $L/t15b.tsv $L/t30a.tsv $L/t30b.tsv $L/t15a.tsv $L/t30a.tsv | tee $L/repeat.txt
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
