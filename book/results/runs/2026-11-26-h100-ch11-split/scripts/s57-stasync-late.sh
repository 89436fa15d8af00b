#!/bin/bash
# Chapter 11's cluster kernel: the exchange by st.async into owners' inboxes, an mbarrier counting the bytes, no cluster barrier after the start, its setup after the first copies are issued (new) against
# HEAD's (old, the carried profile build), alternated, two rounds; test_ch11 of the new build.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/s57; mkdir -p $R
( nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u ) > $R/gpu.txt
mkdir -p /tmp/new /tmp/old && tar -xJf .deps/carry15/s50.txz -C /tmp/new && tar -xJf .deps/carry16/prof.txz -C /tmp/old || exit 1
timeout 150 /tmp/new/tests/test_ch11 > $R/test_ch11.txt 2>&1; echo "test_ch11 rc=$?" >> $R/summary.txt; tail -2 $R/test_ch11.txt >> $R/summary.txt
for round in 1 2; do for s in "576 960" "2048 2560" "4096 6144"; do for tok in 1 16 32 64; do set -- $s
  for b in old new; do echo -n "r$round $b " >> $R/finish.txt
    timeout 60 /tmp/$b/chapters/11-flashnorm/ch11_flashnorm --tokens $tok --k $1 --n $2 --fused-kernel cluster 2>&1 | grep -E "^ *[0-9]+ ->|FAIL" >> $R/finish.txt
  done
done; done; done
P=/tmp/new/chapters/11-flashnorm/ch11_flashnorm
for a in "--tokens 64 --k 576 --n 960" "--tokens 17 --k 4100 --n 72" "--tokens 5 --k 100 --n 70"; do for t in memcheck synccheck; do
  echo "== $t $a" >> $R/sanitizers.txt; timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $P $a --fused-kernel cluster --quick 2>&1 | grep -E "ERROR SUMMARY|FAIL" >> $R/sanitizers.txt; echo "rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
done; done
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $P --tokens 5 --k 100 --n 70 --fused-kernel cluster --quick 2>&1 | grep -E "RACECHECK SUMMARY" >> $R/sanitizers.txt; echo "racecheck ragged rc=${PIPESTATUS[0]}" >> $R/sanitizers.txt
date -u >> $R/gpu.txt
tar -C $OUT -czf $OUT/s57.tgz s57
