#!/bin/bash
# Every chapter's kernels (normlab tour) with store_chunk's 128-bit store written out (new) against the committed build (base), alternated.
exec > >(tee $OUT/e9.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/base && tar -xJf .deps/pb/pb.txz -C /tmp/base tools/normlab && xz -dc .deps/e9/normlab-new.xz > /tmp/normlab-new && chmod +x /tmp/normlab-new
R=$OUT/tours; mkdir -p $R
for shape in "4096 8192 bf16" "16384 4096 bf16" "2048 8192 fp32" "8192 576 bf16" "512 65536 bf16"; do set -- $shape
  for i in 1 2; do
    /tmp/base/tools/normlab tour --rows $1 --cols $2 --dtype $3 > $R/$1x$2-$3-base-$i.txt 2>&1; echo "$shape base rc=$?"
    /tmp/normlab-new tour --rows $1 --cols $2 --dtype $3 > $R/$1x$2-$3-new-$i.txt 2>&1; echo "$shape new rc=$?"
  done
done
date -u
grep -l FAIL $R/*.txt; echo "(files with FAIL above)"
tar -czf $OUT/tours.tgz -C $OUT tours
