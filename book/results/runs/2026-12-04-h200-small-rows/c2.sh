#!/bin/bash
# Call C2: the head-start experiment (head_start.py) with the CPU-built small.so.
L=$OUT/logs; mkdir -p $L
exec > >(tee $L/c2.txt) 2>&1
python3 book/results/runs/2026-12-04-h200-small-rows/head_start.py .deps/small/small.so $L/head_start.json
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
