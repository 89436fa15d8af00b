# normlab's time over torch.compile's, per row, in two sweep files (each ratio from its own run)
import json, sys
def table(path):
    d=json.load(open(path)); out={}
    for r in d['rows']:
        t={i['name']:i.get('median_ms') for i in r['implementations']}
        if t.get('torch.compile') and t.get('normlab (torch op)'):
            out[(r['op'],r['rows'],r['cols'])]=(t['torch.compile']/t['normlab (torch op)'], t['normlab (torch op)']*1e3, t['torch.compile']*1e3)
    return out
a,b=table(sys.argv[1]),table(sys.argv[2])
import math
ls=[]
for k in sorted(b):
    if k in a:
        print(f"{k[0]:12s} {k[1]:6d} x {k[2]:6d}  before {a[k][0]:.3f} ({a[k][1]:.1f} us)  after {b[k][0]:.3f} ({b[k][1]:.1f} us)")
        ls.append(math.log(b[k][0]/a[k][0]))
if ls: print("geo-mean after/before of the ratio:", math.exp(sum(ls)/len(ls)), len(ls))
