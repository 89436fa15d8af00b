#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c1/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; timeout 60 /tmp/v/ch10_$v --dtype fp32 --kernel whole_gpu "$@" 2>&1 | grep -E "whole_gpu|persisting"; }
for shape in "layernorm 16 4194304" "layernorm 2 9437184"; do set -- $shape
  NORMLAB_WG_TRACE_FILE=/tmp/tr.txt timeout 120 /tmp/v/ch10_trgrp --dtype fp32 --kernel whole_gpu --quick --op $1 --rows $2 --cols $3 > /dev/null 2>&1
  python3 .deps/run/an.py /tmp/tr.txt > $OUT/trace-grp-$1-$2.txt 2>&1
  NORMLAB_WG_PERSIST=1 NORMLAB_WG_TRACE_FILE=/tmp/tr.txt timeout 120 /tmp/v/ch10_trgrp --dtype fp32 --kernel whole_gpu --quick --op $1 --rows $2 --cols $3 > /dev/null 2>&1
  python3 .deps/run/an.py /tmp/tr.txt > $OUT/trace-grp-persist-$1-$2.txt 2>&1
done
for round in 1 2; do for v in mergeahead grp grpx; do for p in "" 1; do
  export NORMLAB_WG_PERSIST=$p; [ -z "$p" ] && unset NORMLAB_WG_PERSIST
  one $v --op layernorm --rows 16 --cols 4194304
  [ $round = 1 ] && one $v --op rmsnorm --rows 16 --cols 4194304
  [ $round = 1 ] && one $v --op rmsnorm --rows 32 --cols 2097152
  one $v --op layernorm --rows 2 --cols 9437184
done; done; done > $OUT/w3.txt 2>&1
date -u >> $OUT/gpu.txt
cat $OUT/w3.txt; head -8 $OUT/trace-*
