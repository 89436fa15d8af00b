#!/bin/bash
# The peer comparison of the dtypes named, one process each: normlab from /tmp/gpu (the gpu
# preset built by build.sh in the previous call), the peers installed there in /tmp/peers.
exec > >(tee $OUT/q-calls.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
[ -f /tmp/peers.env ] || { echo "no peers installed"; exit 1; }
eval "$(cat /tmp/peers.env)"; echo "PYTHONPATH=$PYTHONPATH"
for d in "$@"; do
  mkdir -p $OUT/r-$d
  timeout 560 python3 bench/compare_peers.py --build /tmp/gpu --out $OUT/r-$d --require-torch --only $d > $OUT/q-$d.log 2>&1; echo "compare $d rc=$?"; date -u
done
cd $OUT && tar -czf q-$1.tgz q-*.log r-*
