#!/bin/bash
# test_ch10 again, alone, with the failure's report.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/t && tar xJf .deps/c19/v.txz -C /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
(cd /tmp/t && timeout 200 ./test_ch10 > $OUT/test_ch10-full.txt 2>&1; echo "rc=$?" >> $OUT/test_ch10-full.txt)
grep -B3 -A30 "FAILED" $OUT/test_ch10-full.txt | head -80; tail -4 $OUT/test_ch10-full.txt; date -u
