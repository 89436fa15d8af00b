import os, sys, json
import torch
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import compare_peers as cp
import normlab_torch as nt
EPS = cp.EPS
class A: warmup = 3; repetitions = 30
bench = cp.Bench(torch, A)
cp.configure_dynamo(torch)
F = torch.nn.functional
tag = sys.argv[1]; with_tc = len(sys.argv) > 2
shapes = [(op, r, c) for op in ("rms", "ln", "add") for (r, c) in
          ((1, 4096), (32, 4096), (256, 4096), (4096, 8192), (2048, 16384), (8192, 576), (16384, 2048),
           (65536, 1024), (1, 16384), (256, 8192), (1024, 1024), (16384, 4096), (4096, 16384))]
g = torch.Generator(device="cuda").manual_seed(1)
out = {}
for op, rows, cols in shapes:
    x = torch.randn(rows, cols, generator=g, device="cuda").bfloat16()
    r = torch.randn(rows, cols, generator=g, device="cuda").bfloat16()
    w = (1 + 0.6 * (torch.rand(cols, generator=g, device="cuda") - 0.5)).bfloat16()
    b = (0.5 * torch.randn(cols, generator=g, device="cuda")).bfloat16()
    if op == "rms":
        nf = lambda: nt.rms_norm(x, w, EPS); tf = lambda x, w: F.rms_norm(x, (cols,), w, EPS); targs = (x, w)
    elif op == "ln":
        nf = lambda: nt.layer_norm(x, w, b, EPS); tf = lambda x, w, b: F.layer_norm(x, (cols,), w, b, EPS); targs = (x, w, b)
    else:
        rr = r.clone()
        nf = lambda: nt.fused_add_rms_norm_(x, rr, w, EPS)
        def tf(x, r, w):
            h = x + r
            return F.rms_norm(h, (cols,), w, EPS), h
        targs = (x, r, w)
    res = {"normlab": bench.median_ms(nf) * 1e3}
    if with_tc:
        cf = torch.compile(tf, dynamic=False); cf(*targs)
        res["tc"] = bench.median_ms(lambda: cf(*targs)) * 1e3
    key = f"{op} {rows}x{cols}"; out[key] = res
    print(tag, key, " ".join(f"{k}={v:.2f}" for k, v in res.items()), flush=True)
json.dump(out, open(os.environ["OUT"] + f"/exp2-{tag}.json", "w"), indent=1)
