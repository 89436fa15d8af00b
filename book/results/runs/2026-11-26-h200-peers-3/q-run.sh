#!/bin/bash
# The peer comparison on rows matching $1: normlab and its C API carried (pb.txz), the peers from /tmp/stash.
exec > >(tee $OUT/q.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
if [ ! -d /tmp/qb ]; then mkdir -p /tmp/qb && tar -xJf .deps/carry9/pb.txz -C /tmp/qb || exit 1; fi
mkdir -p build/default && cp -r /tmp/qb/* build/default/
if [ ! -d /tmp/peers ]; then OUTP=$(scripts/peer-wheels --install /tmp/stash/peers-1 /tmp/stash/peers-2 /tmp/peers) || exit 1; echo "$OUTP" | tail -1 > /tmp/peers.env; fi
eval "$(cat /tmp/peers.env)"; echo "PYTHONPATH=$PYTHONPATH"
timeout 560 python3 bench/compare_peers.py --build build/default --out $OUT/r --require-torch --only "$1"; echo "compare rc=$?"
date -u
