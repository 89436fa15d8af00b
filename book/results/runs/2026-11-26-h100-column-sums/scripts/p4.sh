#!/bin/bash
# ncu in situ (the program's timed loop: L2 flushed by a memset before each launch): duration and DRAM bytes of (b) and (d), fp32 2048 x 8192.
exec > >(tee $OUT/p4.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
xz -dc .deps/s16/ch08-new.xz > /tmp/ch08-new && chmod +x /tmp/ch08-new
for op in layernorm_backward rmsnorm_backward; do for k in StorePartialRow SumInGrid; do
ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum --kernel-name-base mangled -k "regex:13backward_rows.*$k" --launch-skip 4 --launch-count 6 /tmp/ch08-new --rows 2048 --cols 8192 --dtype fp32 --op $op --kernel ${op} > /tmp/n.txt 2>&1
echo "$op $k"; grep -c "==PROF== Profiling" /tmp/n.txt; grep -i error /tmp/n.txt | head -3; grep -E "duration|bytes_|sectors" /tmp/n.txt | awk '{print $1, $2, $NF}' | sort | awk '{a[$1]=a[$1]" "$3; u[$1]=$2} END {for (k in a) print "  ", k, u[k], a[k]}'
done; done
