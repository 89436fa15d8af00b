#!/bin/bash
# Call 2 of 2: the committed tree (residual-first branch) built on the CPU machine for sm_90;
# alternated with the base binaries (39b6a42), then its GPU tests for chapters 07-10.
exec > >(tee $OUT/s9.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p build/default && cat /tmp/stash/build.txz.part-aa .deps/carry5/build.txz.part-ab | xz -d | tar -x -C build/default || exit 1
mkdir -p /work && ln -sfn "$PWD" /work/main && ls /work/main/build/default/tests | head -3
B=/tmp/bins; mkdir -p $B && tar -xJf .deps/carry3/base.txz -C $B
N=build/default/chapters; mkdir -p $B/new
cp $N/07-real-tensors/ch07_real_tensors $N/08-backward/ch08_backward $N/09-every-width/ch09_every_width $B/new/
R=$OUT/res; mkdir -p $R
roof() { awk '/^0[789]/{print $2, $(NF-2)}'; }
for shape in "16384 4096 bf16" "4096 8192 bf16" "2048 8192 fp32" "8192 576 bf16"; do set -- $shape
  for i in 1 2 3; do for v in base new; do
    echo "$1x$2-$3 $v $($B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 | grep -v atomic | roof | tr '\n' ' ')"
  done; done
done > $R/ch08.txt
sort -s -k1,2 $R/ch08.txt
for shape in "16384 4096 bf16" "4096 8192 bf16" "2048 8192 fp32" "8192 576 bf16" "4096 5000 bf16"; do set -- $shape
  for i in 1 2; do for v in base new; do
    $B/$v/ch09_every_width --rows $1 --cols $2 --dtype $3 > $R/ch09-$1x$2-$3-$v-$i.txt 2>&1
    $B/$v/ch07_real_tensors --rows $1 --cols $2 --dtype $3 > $R/ch07-$1x$2-$3-$v-$i.txt 2>&1
  done; done
done
for f in $R/ch09-*.txt $R/ch07-*.txt; do echo "== $(basename $f) $(grep -E "^0[79]  ch0[79]_[a-z_]+ " $f | awk '{print $2, $(NF-2)}' | tr '\n' ' ')"; done
date -u
ctest --test-dir /work/main/build/default -R 'ch07|ch08|ch09|ch10|normlab|capabil|dispatch|known_wrong' -j 3 --timeout 150 --output-on-failure > $R/ctest.txt 2>&1; echo "ctest rc=$?"
tail -25 $R/ctest.txt; date -u
tar -czf $OUT/s9.tgz -C $OUT res
