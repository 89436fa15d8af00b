#!/bin/bash
# The committed rules 5 and 6: chapter 09's GPU tests, the API dispatcher's GPU test, the two new sanitizer runs, and the dispatcher against the old (chapter 07) once more, alternated, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
export NORMLAB_REQUIRE_GPU=1
R=$OUT/w7; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/gpu.txt
mkdir -p /tmp/f && tar -xJf .deps/s24/ch09final.txz -C /tmp/f && tar -xJf .deps/s24/ch09cur.txz -C /tmp/f || exit 1
(/tmp/f/test_ch09 2>&1 | tail -4; /tmp/f/test_dispatch_run 2>&1 | tail -4) > $R/tests.txt
for tool in memcheck racecheck; do
  bash scripts/sanitize.sh $tool /tmp/f/ch09_new --rows 67 --cols 12288 --dtype bf16 --quick 2>&1 | grep -E "^09|SUMMARY" > $R/sanitize-$tool-wide_layernorm.txt; echo "$tool wide_layernorm rc=${PIPESTATUS[0]}" >> $R/tests.txt
  bash scripts/sanitize.sh $tool /tmp/f/ch09_new --rows 67 --cols 16384 --dtype fp16 --quick 2>&1 | grep -E "^09|SUMMARY" > $R/sanitize-$tool-two_rows_an_sm.txt; echo "$tool two_rows_an_sm rc=${PIPESTATUS[0]}" >> $R/tests.txt
done
L=$R/w7.log
for i in 1 2; do
for shape in "4096 16384 bf16" "2048 16384 fp16" "8192 15360 bf16" "4096 14592 bf16" "4096 13312 bf16" "2048 12288 bf16"; do set -- $shape
  for op in rmsnorm layernorm; do
    for b in cur new; do echo "== $shape $op $b" >> $L; /tmp/f/ch09_$b --rows $1 --cols $2 --dtype $3 --op $op --kernel "ch09_${op}" 2>&1 | grep -E "^09 +ch09_${op} |FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $L; done
  done
done; done
date -u >> $R/gpu.txt
python3 - $L <<'PY' | tee $R/summary.txt
import re,sys,collections
d=collections.OrderedDict(); cur=None
for l in open(sys.argv[1]):
    m=re.match(r'== (.*) (cur|new)$',l.strip())
    if m: cur=(m.group(1),m.group(2)); continue
    m=re.match(r'ch09_(\S+) (ok|FAIL) ([\d.]+) ([\d.]+)%',l)
    if m and cur: d.setdefault(cur[0],collections.OrderedDict()).setdefault(cur[1],[]).append(m.group(4) if m.group(2)=='ok' else 'FAIL')
for k,v in d.items(): print(k, ' | '.join(f"{n} {','.join(x)}" for n,x in v.items()))
PY
cat $R/tests.txt
tar -C $OUT -czf $OUT/w7.tgz w7
