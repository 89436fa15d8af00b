#!/bin/bash
# scripts/profile --only ^ch11 on the carried normlab tool and chapter 11 program.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p build/default && tar -xJf .deps/carry16/prof.txz -C build/default || exit 1
timeout 400 bash scripts/profile --only '^ch11' build/default > $OUT/profile.txt 2>&1; echo "profile rc=$?" >> $OUT/profile.txt
tar -czf $OUT/profile.tgz book/results/profile.json book/results/profile.md book/results/profile/ch11_* book/results/profile/cases.tsv
