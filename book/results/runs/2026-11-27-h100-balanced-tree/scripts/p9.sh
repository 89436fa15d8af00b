#!/bin/bash
# LayerNorm statistics in one reduction with the warps merged in a tree (balanced.cuh), now also for few rows (block1/block2): base (511d08e) against new, alternated, three rounds.
exec > >(tee $OUT/p9.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/base && tar -xJf .deps/s16/pb-base.txz -C /tmp/base tools/normlab && xz -dc .deps/s16/normlab-new.xz > /tmp/normlab-new && chmod +x /tmp/normlab-new
mkdir -p $OUT/tours
for i in 1 2 3; do
for shape in "1 4096 bf16" "32 4096 bf16" "1 8192 bf16" "16384 4096 bf16" "4096 8192 bf16"; do set -- $shape
  for b in base new; do
    bin=/tmp/normlab-new; [ $b = base ] && bin=/tmp/base/tools/normlab
    $bin tour --rows $1 --cols $2 --dtype $3 --kernel ch09_ > $OUT/tours/$1x$2-$3-$b-$i.txt 2>&1
    echo "== $shape $b $i"; grep -E "^09 +ch09_(layernorm|add_layernorm|rmsnorm) " $OUT/tours/$1x$2-$3-$b-$i.txt | awk '{print $2, $5, $(NF-2)}'
  done
done; done
grep -l FAIL $OUT/tours/*.txt; echo "(files with FAIL above)"
cd $OUT && tar -czf tours.tgz tours && rm -rf tours
date -u
