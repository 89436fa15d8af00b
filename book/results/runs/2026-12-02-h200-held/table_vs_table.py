#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two tuned tables of one GPU: per grid point, the fastest candidate of NEW against the fastest
of NEW's candidates that OLD also had (both times from NEW's run), geometric mean by op and row
count, and which new configurations won.   python3 table_vs_table.py OLD.tsv NEW.tsv"""
import sys, math, collections
def load(p):
    t={}
    for line in open(p):
        if line.startswith('#') or not line.strip(): continue
        f=line.rstrip('\n').split('\t')
        key=tuple(f[:4]); cands=[c.rsplit('=',1) for c in ' '.join(f[4:]).split() if '=' in c]
        t[key]={k:float(v) for k,v in cands}
    return t
old=load(sys.argv[1]); new=load(sys.argv[2])
rat=collections.defaultdict(list); wins=collections.Counter(); n=0
for k,v in new.items():
    if k not in old or not v: continue
    best=min(v,key=v.get)
    olds=[t for n_,t in v.items() if n_ in old[k]]
    if not olds: continue
    r=min(olds)/v[best]
    rows=k[2]; rows='big' if int(rows)>256 else rows
    rat[(k[0],rows)].append(r)
    wins[best.split('/')[1] if ('held' in best or 'block8_512' in best) else 'old']+=1
allr=[]
for key in sorted(rat):
    l=rat[key]; allr+=l; g=math.exp(sum(map(math.log,l))/len(l)); print(key, len(l), 'geo %.3f max %.3f'%(g,max(l)))
print('all', len(allr), 'geo %.3f'%math.exp(sum(map(math.log,allr))/len(allr)))
print(wins)
