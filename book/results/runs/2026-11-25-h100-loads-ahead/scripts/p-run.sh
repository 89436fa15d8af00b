#!/bin/bash
# The peer comparison, restricted to rows matching $1, with the build carried in two parts.
exec > >(tee $OUT/p.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
date -u
mkdir -p build/default && cat /tmp/stash/carry4/build.txz.part-aa .deps/carry5/build.txz.part-ab | xz -d | tar -x -C build/default || exit 1
OUTP=$(scripts/peer-wheels --install /tmp/stash/peers-1 /tmp/stash/peers-2 /tmp/peers) || exit 1; eval "$(echo "$OUTP" | tail -1)"
echo "PYTHONPATH=$PYTHONPATH"
date -u
timeout 470 python3 bench/compare_peers.py --build build/default --out $OUT/r --require-torch --only "$1"; echo "compare rc=$?"
date -u
