#!/bin/bash
# Session 17: rows of 1025 to 2048 chunks (fp32 4100 to 8192 columns, 16-bit to 16384), which the dispatcher sends to chapter 07's launcher: chapter 09's configurations that hold them (sweep entries) beside chapter 07's kernel, four ops, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/x13.log
B=/tmp/ch09f; cp .deps/s17/exp/ch09_final $B; chmod +x $B
for i in 1 2; do
for shape in "2048 8192 fp32" "4096 8192 fp32" "1024 16384 bf16" "4096 6144 fp32"; do set -- $shape
  for op in rmsnorm layernorm add_rmsnorm add_layernorm; do echo "== $shape $op" >> $OUT/x13.log; $B --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "ch09_${op}( |@)|FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $OUT/x13.log; done
done; done
date -u >> $OUT/x13.log
python3 - $OUT/x13.log <<'PY'
import re,sys,collections
d=collections.OrderedDict(); cur=None
for l in open(sys.argv[1]):
    m=re.match(r'== (.*)',l)
    if m: cur=m.group(1); continue
    m=re.match(r'ch09_(\S+) (ok|FAIL) ([\d.]+) ([\d.]+)%',l)
    if m and cur: d.setdefault(cur,collections.OrderedDict()).setdefault(m.group(1).split('@')[-1] if '@' in m.group(1) else 'DISPATCH',[]).append(m.group(4) if m.group(2)=='ok' else 'FAIL')
for k,v in d.items(): print(k, ' | '.join(f"{n} {','.join(x)}" for n,x in v.items()))
PY
