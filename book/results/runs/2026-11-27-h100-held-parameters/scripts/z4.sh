#!/bin/bash
# The committed form: test_ch10, a known-wrong build that must fail, course.json's sanitizer runs of the
# two whole-GPU forms, and main (base) against it (final), two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
mkdir -p /tmp/v && tar xJf .deps/c19/v.txz -C /tmp/v
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt; date -u >> $OUT/gpu.txt
one() { echo "== $*"; v=$1; shift; timeout 90 /tmp/v/ch10_$v "$@" 2>&1 | grep -E "ch10_|FAIL|rror"; }
(cd /tmp/v && timeout 300 ./test_ch10 2>&1 | tail -4) > $OUT/test_ch10.txt 2>&1
(cd /tmp/v && timeout 120 ./test_ch10_late_bias_dropped "the whole GPU with the parameters held in shared memory, every option" 2>&1 | grep -E "FAILED|failed|passed|with expansion|INFO|:  " | head -30; echo "rc=${PIPESTATUS[0]}") > $OUT/known-wrong.txt 2>&1
for tool in memcheck racecheck synccheck; do for c in "3 4600000" "3 3000004"; do set -- $c
  echo "== $tool --rows $1 --cols $2"; timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 /tmp/v/ch10_final --rows $1 --cols $2 --op layernorm --kernel whole_gpu --quick 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"
done; done > $OUT/sanitizers.txt 2>&1
for round in 1 2; do for v in base final; do
  for s in "layernorm 16 4194304" "rmsnorm 16 4194304" "layernorm 32 2097152" "rmsnorm 32 2097152" "layernorm 48 1572864" "rmsnorm 48 1572864" "layernorm 64 1048576" "layernorm 2 9437184"; do set -- $s
    one $v --dtype fp32 --kernel whole_gpu --op $1 --rows $2 --cols $3
  done
done; done > $OUT/perf.txt 2>&1
for s in "layernorm 16 4194304" "rmsnorm 16 4194304" "layernorm 32 2097152"; do set -- $s
  one final --dtype fp32 --op $1 --rows $2 --cols $3 --kernel ch10_
done > $OUT/paths.txt 2>&1
date -u >> $OUT/gpu.txt
cat $OUT/gpu.txt $OUT/test_ch10.txt $OUT/known-wrong.txt $OUT/sanitizers.txt
grep -v "^$" $OUT/perf.txt | sed 's/  */ /g' | paste - - | awk '{print $2, $8, $10, $12, $19}'
cat $OUT/paths.txt
