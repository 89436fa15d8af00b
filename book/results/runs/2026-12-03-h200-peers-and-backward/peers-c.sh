#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Call C: the peers installed, the book's peer table for bf16 and fp16 (one run of compare_peers each).
L=$OUT/logs; mkdir -p $L
cp .deps/peers-3/* /tmp/peers/
scripts/peer-wheels --install /tmp/peers /tmp/peerlib > $L/peers.txt 2>&1; tail -2 $L/peers.txt
eval "$(grep '^export PYTHONPATH' $L/peers.txt)"
export PYTHONPATH=$PWD/python:$PYTHONPATH
echo "$PYTHONPATH" > /tmp/pythonpath
for d in bf16 fp16; do
  start=$(date +%s)
  python3 bench/compare_peers.py --build build/gpu --out $OUT/r-$d --require-torch --only $d > $L/peers-$d.txt 2>&1
  echo "$d rc=$? in $(( $(date +%s) - start )) s" | tee -a $L/times.txt
  tail -4 $L/peers-$d.txt
done
tar -C $OUT -czf $OUT/c.tgz logs r-bf16 r-fp16
