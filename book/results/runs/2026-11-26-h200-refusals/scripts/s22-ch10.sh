#!/bin/bash
# chapter 10's whole-GPU capability: the new GPU test, and the tour at fp32 2 x 9437184 that used to exit 1.
exec > >(tee $OUT/s22.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=/tmp/b22; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/t.txz -C $B
R=$OUT/res; mkdir -p $R
timeout 300 $B/tests/test_ch10 "the whole-GPU entries' capabilities refuse exactly the rows their launcher cannot take" -s > $R/test_ch10-capabilities.txt 2>&1; echo "test rc=$?"; grep -E "taken|16-byte chunks|passed|failed" $R/test_ch10-capabilities.txt | sort | uniq | head -20
timeout 400 $B/tools/normlab tour --rows 2 --cols 9437184 --dtype fp32 --json $R/tour-2x9437184-fp32.json > $R/tour-2x9437184-fp32.txt 2>&1; echo "tour rc=$?"; grep -E "whole_gpu|refus|ch10" $R/tour-2x9437184-fp32.txt | head -20; tail -3 $R/tour-2x9437184-fp32.txt
tar -czf $OUT/s22.tgz -C $OUT res
