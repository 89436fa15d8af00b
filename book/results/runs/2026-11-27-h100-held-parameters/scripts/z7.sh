#!/bin/bash
# test_ch09 and test_ch10 after their shared parameter variants moved to norm_cases.hpp.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/t && tar xJf .deps/c19/v.txz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
(cd /tmp/t && timeout 250 ./test_ch10 2>&1 | tail -3) > $OUT/test_ch10.txt 2>&1 &
(cd /tmp/t && timeout 250 ./test_ch09 2>&1 | tail -3) > $OUT/test_ch09.txt 2>&1
wait
cat $OUT/test_ch09.txt $OUT/test_ch10.txt; date -u
