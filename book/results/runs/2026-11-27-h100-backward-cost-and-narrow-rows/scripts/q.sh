#!/bin/bash
# The peer comparison on rows matching $1: normlab and its C API carried (.deps/pb/pb.txz), the peers from /tmp/stash.
exec > >(tee $OUT/q.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p build/default && tar -xJf .deps/pb/pb.txz -C build/default || exit 1
if [ ! -d /tmp/peers ]; then OUTP=$(scripts/peer-wheels --install /tmp/stash/peers-1 /tmp/stash/peers-2 /tmp/peers) || exit 1; echo "$OUTP" | tail -1 > /tmp/peers.env; fi
eval "$(cat /tmp/peers.env)"; echo "PYTHONPATH=$PYTHONPATH"
timeout 540 python3 bench/compare_peers.py --build build/default --out $OUT/r --require-torch --only "$1"; echo "compare rc=$?"
date -u
