#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/p2; mkdir -p $R
.deps/s21/proto 2 > $R/proto.txt 2>&1
grep -v "^   m" $R/proto.txt
