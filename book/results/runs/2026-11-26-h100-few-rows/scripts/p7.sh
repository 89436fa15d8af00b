#!/bin/bash
# Few rows: normlab tour at 1 x 4096 and 32 x 4096 bf16 (and fp32 1 x 4096), base (295f7e7) against new (ch09's block kernels prefetching the parameters into L2 when rows <= 64), alternated, three rounds.
exec > >(tee $OUT/p7.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/base && tar -xJf .deps/s16/pb-base.txz -C /tmp/base tools/normlab && xz -dc .deps/s16/normlab-new.xz > /tmp/normlab-new && chmod +x /tmp/normlab-new
mkdir -p $OUT/tours
for i in 1 2 3; do
for shape in "1 4096 bf16" "32 4096 bf16" "1 4096 fp32"; do set -- $shape
  /tmp/base/tools/normlab tour --rows $1 --cols $2 --dtype $3 > $OUT/tours/$1x$2-$3-base-$i.txt 2>&1
  /tmp/normlab-new tour --rows $1 --cols $2 --dtype $3 > $OUT/tours/$1x$2-$3-new-$i.txt 2>&1
  for b in base new; do echo "== $shape $b $i"; grep -E "^09 +ch09_(rmsnorm|layernorm|add_rmsnorm|add_layernorm) " $OUT/tours/$1x$2-$3-$b-$i.txt | awk '{print $2, $5}'; done
done; done
grep -l FAIL $OUT/tours/*.txt; echo "(files with FAIL above)"
cd $OUT && tar -czf tours.tgz tours && rm -rf tours
date -u
