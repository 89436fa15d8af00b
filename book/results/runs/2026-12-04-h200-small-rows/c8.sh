#!/bin/bash
# Call C8: the block-a-row experiment (block_rows.py) with the CPU-built block_rows.so.
L=$OUT/logs; mkdir -p $L
exec > >(tee $L/c8.txt) 2>&1
python3 book/results/runs/2026-12-04-h200-small-rows/block_rows.py .deps/small/block_rows.so $L/block_rows.json
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
