#!/bin/bash
# The peer comparison, bf16, fp16 and fp32, one process each: normlab from /tmp/gpu (the gpu
# preset built by gall.sh in the previous call), the peers from /tmp/stash.
exec > >(tee $OUT/q.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
if [ ! -d /tmp/peers ]; then OUTP=$(scripts/peer-wheels --install /tmp/stash/peers-1 /tmp/stash/peers-2 /tmp/peers) || exit 1; echo "$OUTP" | tail -1 > /tmp/peers.env; fi
eval "$(cat /tmp/peers.env)"; echo "PYTHONPATH=$PYTHONPATH"
for d in bf16 fp16 fp32; do
  mkdir -p $OUT/r-$d
  timeout 330 python3 bench/compare_peers.py --build /tmp/gpu --out $OUT/r-$d --require-torch --only $d > $OUT/q-$d.log 2>&1; echo "compare $d rc=$?"; date -u
done
cd $OUT && tar -czf q.tgz q-*.log r-*
