#!/bin/bash
# compare_peers.py with the copy of each row's bytes, on the open targets' rows (no peers
# installed here: PyTorch's columns and normlab), one process per --only.
exec > >(tee $OUT/c6.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/b/tools /tmp/b/python && tar -xJf .deps/s26/nl.txz -C /tmp/b && mv /tmp/b/normlab /tmp/b/tools/ && mv /tmp/b/libnormlab_capi.so /tmp/b/python/
i=0
for only in "512 x 65536" "fp32 2048 x 8192" "16 x 4194304" "2 x 9437184"; do
  i=$((i+1)); mkdir -p $OUT/r$i
  timeout 200 python3 bench/compare_peers.py --build /tmp/b --out $OUT/r$i --only "$only" > $OUT/q$i.log 2>&1; echo "compare '$only' rc=$?"; date -u
  grep -E "timing|copy of the same|normlab|torch.compile  " $OUT/q$i.log | head -40
done
cd $OUT && tar -czf c6.tgz q*.log r*
