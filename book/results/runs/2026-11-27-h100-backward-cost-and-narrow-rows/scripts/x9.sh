#!/bin/bash
# Session 17: the dispatcher with aligned rows of 97 to 256 chunks (up to 1024 columns) sent to block2_256x4 (few rows: block1) instead of narrow32x4 / narrow32x8, beside those configurations' sweep entries in one process; four ops, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/x9.log
B=/tmp/ch09r; cp .deps/s17/exp/ch09_rule $B; chmod +x $B
for i in 1 2; do
for shape in "1024 1024 fp32" "4096 1024 fp32" "16384 1024 fp32" "65536 1024 fp32" "8192 400 fp32" "8192 768 fp32" "32 1024 fp32" "1024 1024 bf16" "8192 1024 bf16" "32768 1024 bf16" "16384 800 bf16" "32768 1024 fp16" "32 1024 bf16" "1 1024 bf16"; do set -- $shape
  for op in rmsnorm layernorm add_rmsnorm add_layernorm; do echo "== $shape $op" >> $OUT/x9.log; $B --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "ch09_${op}( |@narrow32x[48] |@block2_256x4 |@block1 )|FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $OUT/x9.log; done
done; done
date -u >> $OUT/x9.log
python3 - $OUT/x9.log <<'PY'
import re,sys,collections
d=collections.OrderedDict(); cur=None
for l in open(sys.argv[1]):
    m=re.match(r'== (.*)',l)
    if m: cur=m.group(1); continue
    m=re.match(r'ch09_(\S+) (ok|FAIL) ([\d.]+) ([\d.]+)%',l)
    if m and cur: d.setdefault(cur,collections.OrderedDict()).setdefault(m.group(1).split('@')[-1] if '@' in m.group(1) else 'DISPATCH',[]).append((m.group(4)+'%/'+m.group(3)) if m.group(2)=='ok' else 'FAIL')
for k,v in d.items(): print(k, ' | '.join(f"{n} {','.join(x)}" for n,x in v.items()))
PY
