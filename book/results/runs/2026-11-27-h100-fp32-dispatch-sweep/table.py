import json,glob,re,sys,os
def load(d, logf):
    log=open(logf).read()
    disp={}
    for m in re.finditer(r"== (\w+) (\d+) x (\d+): kernel:\s+(\S+)",log):
        disp[(m.group(1),int(m.group(2)),int(m.group(3)))]=m.group(4)
    out={}
    for f in glob.glob(d+'/*.json'):
        j=json.load(open(f))
        op,shape=os.path.basename(f)[:-5].split('-')
        M,N=map(int,shape.split('x'))
        ks={k['name']:k for k in j['kernels'] if k.get('passed')}
        dk=disp[(op,M,N)]
        c='ch04_rmsnorm_fused_float4' if op=='rmsnorm' else 'ch06_add_rmsnorm_fused'
        out[(op,M,N)]=(dk,ks[dk]['percent_of_copy_roof'],ks[c]['percent_of_copy_roof'],ks[dk]['median_ms']/ks[c]['median_ms'])
    return out
a=load('round1','round1.log'); b=load('round2','round2.log')
print("| op | shape | the dispatcher's kernel | its % (two rounds) | ch04 / ch06 % | time ratio |")
print("|---|---|---|---|---|---|")
for k in sorted(a, key=lambda k:(k[0],k[1]*k[2],k[2])):
    op,M,N=k; x=a[k]; y=b[k]
    c='ch04' if op=='rmsnorm' else 'ch06'
    print(f"| {op} | {M} x {N} | {x[0]} | {x[1]:.1f}, {y[1]:.1f}% | {x[2]:.1f}, {y[2]:.1f}% | {x[3]:.3f}, {y[3]:.3f} |")
