#!/bin/bash
# chapter 11 final: ctest -R ch11 (GPU test, sanitizers), the 18 shapes twice, PyTorch's, the racecheck repro, ncu profile of the two ch11 cases.
exec > >(tee $OUT/s20.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p build/default && tar -xJf .deps/carry9/b.txz -C build/default
R=$OUT/res; mkdir -p $R
timeout 300 ctest --test-dir build/default -R ch11 --output-on-failure > $R/ctest-ch11.txt 2>&1; echo "ctest rc=$?"; grep -E "Test +#|tests passed|Not Run|Failed" $R/ctest-ch11.txt
for i in 1 2; do timeout 150 build/default/chapters/11-flashnorm/ch11_flashnorm --json $R/ch11-$i.json > $R/ch11-$i.txt 2>&1; echo "ch11 round $i rc=$?"; cat $R/ch11-$i.txt; done
timeout 200 python3 bench/flashnorm_torch.py > $R/ch11_torch.json 2> $R/ch11_torch.err; echo "torch rc=$?"; head -c 600 $R/ch11_torch.json; echo
nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/rc .deps/carry10/rc.cu && for w in 0 1 2 3; do echo "--- case $w"; compute-sanitizer --tool racecheck --error-exitcode 1 /tmp/rc $w; echo "rc=$?"; done > $R/racecheck-cp-async-cluster.txt 2>&1; grep -E "^---|rc=|RACECHECK SUMMARY|launch" $R/racecheck-cp-async-cluster.txt
timeout 300 bash scripts/profile --only '^ch11' build/default > $R/profile.txt 2>&1; echo "profile rc=$?"; tail -3 $R/profile.txt
tar -czf $OUT/s20.tgz -C $OUT res
tar -czf $OUT/profile.tgz book/results/profile.json book/results/profile.md book/results/profile/ch11_*
