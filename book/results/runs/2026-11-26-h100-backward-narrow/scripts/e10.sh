#!/bin/bash
# The gpu preset with store_chunk's written-out 128-bit store for 16-bit rows; then tours of the committed build (base) against it (new16).
bash .deps/run/gfinal2.sh
exec > >(tee $OUT/e10.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
date -u
mkdir -p /tmp/base && tar -xJf .deps/pb/pb.txz -C /tmp/base tools/normlab && xz -dc .deps/e9/normlab-new16.xz > /tmp/normlab-new16 && chmod +x /tmp/normlab-new16
R=$OUT/tours16; mkdir -p $R
for shape in "512 65536 bf16" "16384 4096 bf16" "2048 8192 fp32"; do set -- $shape
  for i in 1 2; do
    timeout 60 /tmp/base/tools/normlab tour --rows $1 --cols $2 --dtype $3 > $R/$1x$2-$3-base-$i.txt 2>&1; echo "$shape base rc=$?"
    timeout 60 /tmp/normlab-new16 tour --rows $1 --cols $2 --dtype $3 > $R/$1x$2-$3-new16-$i.txt 2>&1; echo "$shape new16 rc=$?"
  done
done
date -u
tar -czf $OUT/tours16.tgz -C $OUT tours16
