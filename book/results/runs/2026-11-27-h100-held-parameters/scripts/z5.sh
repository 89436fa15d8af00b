#!/bin/bash
# A known-wrong build's held-form test (must fail), then the peer comparison on the two fp32 LayerNorm rows of
# issue 15: normlab and its C API carried (.deps/pb/pb.txz), the peers from /tmp/stash.
exec > >(tee $OUT/q.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/kw && tar xJf .deps/c19/v.txz -C /tmp/kw
(cd /tmp/kw && timeout 120 ./test_ch10_late_bias_dropped "the whole GPU with the parameters held*" 2>&1 | tail -40; echo "rc=${PIPESTATUS[0]}") > $OUT/known-wrong.txt 2>&1
grep -E "^rc=|test cases|assertions" $OUT/known-wrong.txt
mkdir -p build/default && tar -xJf .deps/pb/pb.txz -C build/default || exit 1
if [ ! -d /tmp/peers ]; then OUTP=$(scripts/peer-wheels --install /tmp/stash/peers-1 /tmp/stash/peers-2 /tmp/peers) || exit 1; echo "$OUTP" | tail -1 > /tmp/peers.env; fi
eval "$(cat /tmp/peers.env)"; echo "PYTHONPATH=$PYTHONPATH"
timeout 400 python3 bench/compare_peers.py --build build/default --out $OUT/r --require-torch --only "layernorm fp32 "; echo "compare rc=$?"
date -u
