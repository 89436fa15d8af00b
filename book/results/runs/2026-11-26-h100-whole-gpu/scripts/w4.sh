#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c1/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; timeout 60 /tmp/v/ch10_$v --dtype fp32 "$@" 2>&1 | grep -E "ch10_|roof:"; }
NORMLAB_WG_TRACE_FILE=/tmp/tr.txt timeout 120 /tmp/v/ch10_trgx --dtype fp32 --kernel whole_gpu --quick --op layernorm --rows 16 --cols 4194304 > /dev/null 2>&1
python3 .deps/run/an.py /tmp/tr.txt > $OUT/trace-gx-layernorm-16.txt 2>&1
NORMLAB_WG_TRACE_FILE=/tmp/tr.txt timeout 120 /tmp/v/ch10_trgx --dtype fp32 --kernel whole_gpu --quick --op rmsnorm --rows 16 --cols 4194304 > /dev/null 2>&1
python3 .deps/run/an.py /tmp/tr.txt > $OUT/trace-gx-rmsnorm-16.txt 2>&1
for round in 1 2; do for v in g_plain gx_noahead grpx; do
  one $v --kernel whole_gpu --op layernorm --rows 16 --cols 4194304
  one $v --kernel whole_gpu --op rmsnorm --rows 16 --cols 4194304
  one $v --kernel whole_gpu --op layernorm --rows 2 --cols 9437184
  one $v --kernel whole_gpu --op rmsnorm --rows 32 --cols 2097152
done; done > $OUT/w4.txt 2>&1
for shape in "layernorm 16 4194304" "rmsnorm 16 4194304" "layernorm 2 9437184" "rmsnorm 32 2097152" "layernorm 64 1048576" "rmsnorm 8 8388608"; do set -- $shape
  one grpx --op $1 --rows $2 --cols $3 --kernel ch10_
done > $OUT/w5.txt 2>&1
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
for v in g_plain grpx; do
  timeout 200 ncu --metrics $M -k regex:norm_whole_gpu -c 1 /tmp/v/ch10_$v --dtype fp32 --kernel whole_gpu --quick --op layernorm --rows 16 --cols 4194304 > $OUT/ncu-$v.txt 2>&1
done
date -u >> $OUT/gpu.txt
cat $OUT/w4.txt $OUT/w5.txt | grep -v roof; grep -E "dram__|lts__|gpu__time" $OUT/ncu-*.txt; head -8 $OUT/trace-*
