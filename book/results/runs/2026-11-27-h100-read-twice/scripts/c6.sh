#!/bin/bash
exec > >(tee $OUT/c6.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
export TORCH_LOGS=output_code TORCHINDUCTOR_CACHE_DIR=/tmp/inductor
timeout 240 python3 .deps/run25/c6.py > $OUT/inductor.txt 2>&1; echo "rc=$?"
grep -c "" $OUT/inductor.txt; grep -nE "^#####|def triton_|num_warps|XBLOCK|R0_BLOCK|RBLOCK|persistent|@triton" $OUT/inductor.txt | head -60
date -u
