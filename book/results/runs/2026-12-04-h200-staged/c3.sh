#!/bin/bash
# Call C3, in four calls at once after each other (each carries one part, under the carry cap):
# "stage DIR" copies .deps/DIR (peers-1, peers-2, t3) to /tmp/stage; "sweep" carries peers-3,
# installs the peers and runs the three sweeps with the CPU build's libnormlab_capi.so (the
# table C2 wrote compiled in; carried as .deps/t3/capi.so.xz), the ctypes path.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
mkdir -p /tmp/stage
if [ "$1" = stage ]; then cp -r .deps/$2 /tmp/stage/ && ls /tmp/stage; exit; fi
exec > >(tee $L/c3.txt) 2>&1
mkdir -p build/cpu/python && xz -dc /tmp/stage/t3/capi.so.xz > build/cpu/python/libnormlab_capi.so
scripts/peer-wheels --install /tmp/stage/peers-1 /tmp/stage/peers-2 .deps/peers-3 /tmp/peers > $L/peers.log 2>&1; echo "peers rc=$? at $(el)s"
export PYTHONPATH=/tmp/peers:/tmp/peers/nvidia_cutlass_dsl/dsl_packages LD_LIBRARY_PATH=/usr/local/cuda/lib64
for d in fp32 bf16 fp16; do
  b=140; [ $d = bf16 ] && b=250
  python3 bench/compare_peers.py --sweep $d --build build/cpu --out $L/sweep --require-torch --budget-s $b > $L/sweep-$d.log 2>&1; echo "sweep $d rc=$? at $(el)s"
  tail -n 3 $L/sweep-$d.log
done
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
