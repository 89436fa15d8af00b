#!/bin/bash
# s71: the course's new sanitizer run of chapter 10 (many rows a cluster, so the inboxes are
# reused), memcheck, racecheck and synccheck, on the final build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
mkdir -p /tmp/v && tar -xJf .deps/carry17/fin.txz -C /tmp/v || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for tool in memcheck racecheck synccheck; do
  echo "== $tool"
  timeout 250 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v/fin/ch10_huge_rows --rows 1200 --cols 20000 --dtype bf16 --kernel cluster --quick 2>&1 | grep -v "^$" | tail -6; echo "rc=${PIPESTATUS[0]}"
done
date -u
