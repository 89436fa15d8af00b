#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/c4; mkdir -p $R
for b in proto_v3164 proto_vi; do [ -x .deps/s21/$b ] && { echo "== $b"; .deps/s21/$b 1; } >> $R/proto.txt 2>&1; done
cat $R/proto.txt
