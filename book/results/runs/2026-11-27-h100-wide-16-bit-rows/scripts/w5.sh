#!/bin/bash
# Rows of 1793 to 2048 chunks: chapter 07 (the dispatcher) beside block4, block8 and the new block8_256x2 (8 vectors, 2 blocks of 256 an SM: 128 registers), four ops, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
R=$OUT/w5; mkdir -p $R; L=$R/w5.log
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $L
mkdir -p /tmp/f && tar -xJf .deps/s24/ch09b8.txz -C /tmp/f || exit 1
B=/tmp/f/ch09_b8
for i in 1 2; do
for shape in "4096 16384 bf16" "1024 16384 bf16" "8192 15360 bf16" "4096 14592 bf16" "4096 14336 bf16" "4096 16384 fp16" "2048 16384 fp16" "8192 8192 fp32" "4096 7680 fp32"; do set -- $shape
  for op in rmsnorm layernorm add_rmsnorm add_layernorm; do echo "== $shape $op" >> $L; $B --rows $1 --cols $2 --dtype $3 --op $op 2>&1 | grep -E "ch09_${op}( |@block)|FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $L; done
done; done
date -u >> $L
python3 - $L <<'PY' | tee $R/summary.txt
import re,sys,collections
d=collections.OrderedDict(); cur=None
for l in open(sys.argv[1]):
    m=re.match(r'== (.*)',l)
    if m: cur=m.group(1); continue
    m=re.match(r'ch09_(\S+) (ok|FAIL) ([\d.]+) ([\d.]+)%',l)
    if m and cur: d.setdefault(cur,collections.OrderedDict()).setdefault(m.group(1).split('@')[-1] if '@' in m.group(1) else 'DISPATCH',[]).append(m.group(4) if m.group(2)=='ok' else 'FAIL')
for k,v in d.items(): print(k, ' | '.join(f"{n} {','.join(x)}" for n,x in v.items()))
PY
tar -C $OUT -czf $OUT/w5.tgz w5
