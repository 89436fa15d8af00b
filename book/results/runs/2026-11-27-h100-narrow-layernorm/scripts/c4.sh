#!/bin/bash
# Session 25, call 4: chapter 09's narrow16x5_3 (16 lanes of 5 chunks, three blocks an SM, LayerNorm too) against
# the narrow configurations at 576-wide rows, every op, bf16 and fp16; sanitizers on it.
exec > >(tee $OUT/c4.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/s25 && tar -xJf .deps/s25/c4.txz -C /tmp/s25 || exit 1
P=/tmp/s25/ch09_new
for r in 1 2; do for d in bf16 fp16; do for s in "8192 576" "16384 576" "8192 520" "8192 640"; do set -- $s
  echo "== r$r $d $1 x $2"; timeout 100 $P --dtype $d --rows $1 --cols $2 --kernel "@narrow" 2>&1 | grep -E "narrow|roof:"
done; done; done
date -u
for t in memcheck racecheck; do for a in "--rows 67 --cols 576" "--rows 67 --cols 520"; do
  echo "== $t $a"; timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $P --dtype bf16 $a --kernel "@narrow16x5_3" --quick 2>&1 | grep -E "SUMMARY|narrow8x9" | head -12; echo "rc=${PIPESTATUS[0]}"
done; done
date -u
