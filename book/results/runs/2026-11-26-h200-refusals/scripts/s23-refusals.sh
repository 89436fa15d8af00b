#!/bin/bash
# chapter 01's widest row and chapter 10's whole-GPU capability: test_ch01, and the tours at fp32 2 x 9437184 and 16 x 4194304.
exec > >(tee $OUT/s23.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/b23; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/t.txz -C $B
R=$OUT/res; mkdir -p $R
timeout 200 $B/tests/test_ch01 > $R/test_ch01.txt 2>&1; echo "test_ch01 rc=$? $(tail -2 $R/test_ch01.txt)"
for s in "2 9437184" "16 4194304"; do set -- $s
  timeout 250 $B/tools/normlab tour --rows $1 --cols $2 --dtype fp32 --json $R/tour-$1x$2-fp32.json > $R/tour-$1x$2-fp32.txt 2>&1; echo "tour $1x$2 rc=$?"; grep -E "ch01|whole_gpu|FAIL" $R/tour-$1x$2-fp32.txt | head -8
done
tar -czf $OUT/s23.tgz -C $OUT res
