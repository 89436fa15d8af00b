#!/bin/bash
# The backward rows of the comparison (chapter 08's and the wide rows of chapter 10's cluster),
# the peers installed by run.sh into /tmp/peerlib, normlab from /tmp/b.
B=/tmp/b; L=$OUT/logs; mkdir -p $L
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64:/usr/local/cuda/lib
export PYTHONPATH=/tmp/peerlib:/tmp/peerlib/nvidia_cutlass_dsl/dsl_packages:$PWD/python NORMLAB_CAPI=$B/libnormlab_capi.so
timeout 560 python3 bench/compare_peers.py --normlab $B/normlab --only backward --out $L --require-torch > $L/compare.txt 2>&1; echo "compare rc=$?" >> $L/status
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
