#!/bin/bash
# build variant $1 with defines $2...
cd /work/main
export CCACHE_DIR=/work/.ccache CCACHE_BASEDIR=/work CCACHE_NOHASHDIR=1
name=$1; shift
cp chapters/10-huge-rows/whole_gpu.cu /tmp/whole_gpu.orig
{ for d in "$@"; do echo "#define $d"; done; cat /tmp/whole_gpu.orig; } > chapters/10-huge-rows/whole_gpu.cu
cmake --build build/default -j2 --target ch10_huge_rows 2>&1 | grep -E "error|spill" | head
PATH=/work/main/.deps/tools/nvidia/cu13/bin:$PATH cuobjdump --dump-resource-usage build/default/chapters/10-huge-rows/CMakeFiles/normlab_ch10.dir/whole_gpu.cu.o 2>&1 | grep -A1 held | grep -o "REG:[0-9]*" | paste - -
cmake --build build/default -j2 --target ch10_huge_rows >/dev/null 2>&1 && cp build/default/chapters/10-huge-rows/ch10_huge_rows .deps/s19/exp/ch10_$name
cp /tmp/whole_gpu.orig chapters/10-huge-rows/whole_gpu.cu
