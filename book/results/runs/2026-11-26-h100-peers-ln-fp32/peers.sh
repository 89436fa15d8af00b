#!/bin/bash
# The peer comparison's fp32 LayerNorm rows (chapter 10's two among them) with the peers this
# machine has (PyTorch eager and torch.compile; Liger and QuACK not installed, and in the last
# full comparison they refused or failed the two chapter 10 rows), normlab built here.
exec > >(tee $OUT/q.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
bash scripts/deps.sh --offline .deps/debs > $OUT/deps.log 2>&1 || { tail -20 $OUT/deps.log; exit 1; }
cmake --preset gpu > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
timeout 300 cmake --build --preset gpu -j 16 --target normlab normlab_capi > $OUT/build.log 2>&1; echo "build rc=$?"; tail -2 $OUT/build.log
date -u
timeout 420 python3 bench/compare_peers.py --build build/gpu --out $OUT/r --require-torch --only "layernorm fp32"; echo "compare rc=$?"
date -u
