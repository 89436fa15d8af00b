#!/bin/bash
# Call D, after A on the same machine and the two peer stagings: the table with the backward
# points compiled in, then the comparison's backward rows against the peers.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/d.txt) 2>&1
cp /tmp/tuned/nvidia-h200.4200GBps.tsv kernels/tuned/ && cmake --build --preset gpu -j 16 > $L/rebuild.log 2>&1; echo "rebuilt rc=$? at $(el)s"
scripts/peer-wheels --install /tmp/stage/peers-1 /tmp/stage/peers-2 .deps/peers-3 /tmp/peers > $L/peers.log 2>&1; echo "peers rc=$? at $(el)s"
export PYTHONPATH=/tmp/peers:/tmp/peers/nvidia_cutlass_dsl/dsl_packages
python3 bench/compare_peers.py --only backward --build build/gpu --out $L/backward --require-torch > $L/backward.log 2>&1; echo "backward rows rc=$? at $(el)s"
tail -n 30 $L/backward.log
for a in "layernorm_backward --rows 4096 --cols 16384" "rmsnorm_backward --rows 512 --cols 32768" "layernorm_backward --rows 256 --cols 65536"; do
  build/gpu/tools/normlab explain --op $a --dtype bf16 | grep -E "kernel|why"; done
cp kernels/tuned/nvidia-h200.4200GBps.tsv $L/
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
