#!/bin/bash
# Rule 6 (add + norm rows of exactly 2048 chunks to block2): the new dispatcher against the old, alternated, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/w9; mkdir -p $R; L=$R/w9.log
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $L
mkdir -p /tmp/f && tar -xJf .deps/s24/ch09add.txz -C /tmp/f && tar -xJf .deps/s24/ch09cur.txz -C /tmp/f || exit 1
for i in 1 2; do
for shape in "4096 16384 bf16" "1024 16384 bf16" "2048 16384 fp16" "8192 8192 fp32"; do set -- $shape
  for op in add_rmsnorm add_layernorm; do
    for b in cur new; do echo "== $shape $op $b" >> $L; /tmp/f/ch09_$b --rows $1 --cols $2 --dtype $3 --op $op --kernel "ch09_${op}" 2>&1 | grep -E "^09 +ch09_${op} |FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $L; done
  done
done; done
date -u >> $L
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
head -1 $L; grep -c FAIL $L
