import struct, sys
f=open(sys.argv[1],'rb'); grid,blocks=struct.unpack('ii',f.read(8))
body=f.read(); slots=len(body)//(1024*6*8)  # rows a block the traced build kept (12 or 24)
raw=struct.unpack('%dQ'%(1024*slots*6), body)
A=[[[raw[(b*slots+i)*6+k] for k in range(6)] for i in range(slots)] for b in range(grid)]
t0=min(x for b in A for i in b for x in i if x>0)
A=[[[ (x-t0)/1000.0 if x>0 else None for x in i] for i in b] for b in A]
print('grid',grid,'cluster',blocks)
mean=lambda l: sum(l)/len(l) if l else float('nan')
for it in range(slots):
    rows=[A[b][it] for b in range(grid) if A[b][it][5] is not None]
    if not rows: break
    d=[[r[k+1]-r[k] for k in range(5)] for r in rows if all(x is not None for x in r)]
    print(f'it {it}: n={len(rows)} start {min(r[0] for r in rows):6.2f}-{max(r[0] for r in rows):6.2f} end {min(r[5] for r in rows):6.2f}-{max(r[5] for r in rows):6.2f} |', ' '.join(f'{n}={mean([x[k] for x in d]):.2f}' for k,n in enumerate(['wait','red','bar','post','store'])))
rel=[];spread=[]
for it in range(slots):
  for c in range(grid//blocks):
    arr=[A[b][it][2] for b in range(c*blocks,(c+1)*blocks)]; r=[A[b][it][3] for b in range(c*blocks,(c+1)*blocks)]
    if None in arr or None in r: continue
    rel.append(min(r)-max(arr)); spread.append(max(arr)-min(arr))
print('barrier: release after last arrival mean %.2f us; arrival spread mean %.2f us'%(mean(rel),mean(spread)))
print('kernel end', max(A[b][i][5] for b in range(grid) for i in range(slots) if A[b][i][5] is not None))
g=[A[b][i+1][0]-A[b][i][5] for b in range(grid) for i in range(slots-1) if A[b][i+1][0] is not None and A[b][i][5] is not None]
print('gap between iterations mean %.2f'%mean(g))
import collections
ends=collections.defaultdict(list)
for c in range(grid//blocks):
    bl=range(c*blocks,(c+1)*blocks)
    n=sum(1 for i in range(slots) if A[c*blocks][i][5] is not None)
    end=max(A[b][i][5] for b in bl for i in range(slots) if A[b][i][5] is not None)
    st=min(A[b][0][0] for b in bl)
    ends[n].append((st,end))
for n in sorted(ends):
    e=ends[n]; print(f'rows {n}: clusters {len(e)} start {min(x[0] for x in e):.1f}-{max(x[0] for x in e):.1f} end {min(x[1] for x in e):.1f}-{max(x[1] for x in e):.1f} mean {mean([x[1] for x in e]):.1f}')
