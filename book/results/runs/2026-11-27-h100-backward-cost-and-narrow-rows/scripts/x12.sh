#!/bin/bash
# Session 17: narrow rows of 33 to 96 chunks (the narrow kernels still take them): the dispatcher beside block2_256x4 and block1 sweep entries, four ops, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/x12.log
B=/tmp/ch09r; cp .deps/s17/exp/ch09_final $B; chmod +x $B
for i in 1 2; do
for shape in "8192 768 bf16" "8192 640 bf16" "16384 512 bf16" "8192 384 fp32" "8192 256 fp32" "32768 768 bf16" "4096 768 fp16"; do set -- $shape
  for op in rmsnorm layernorm add_rmsnorm add_layernorm; do echo "== $shape $op" >> $OUT/x12.log; $B --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "ch09_${op}( |@block2_256x4 |@block1 |@block2 )|FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $OUT/x12.log; done
done; done
date -u >> $OUT/x12.log
python3 - $OUT/x12.log <<'PY'
import re,sys,collections
d=collections.OrderedDict(); cur=None
for l in open(sys.argv[1]):
    m=re.match(r'== (.*)',l)
    if m: cur=m.group(1); continue
    m=re.match(r'ch09_(\S+) (ok|FAIL) ([\d.]+) ([\d.]+)%',l)
    if m and cur: d.setdefault(cur,collections.OrderedDict()).setdefault(m.group(1).split('@')[-1] if '@' in m.group(1) else 'DISPATCH',[]).append((m.group(4)+'%/'+m.group(3)) if m.group(2)=='ok' else 'FAIL')
for k,v in d.items(): print(k, ' | '.join(f"{n} {','.join(x)}" for n,x in v.items()))
PY
