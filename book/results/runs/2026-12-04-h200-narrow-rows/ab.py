"""A/B: normlab's torch op from one libnormlab_capi (NORMLAB_CAPI) on narrow shapes, as a ratio
to a copy of the same bytes timed in the same process; outputs checked vs float64.
ab.py LABEL OUT_DIR [--few]: --few, 1 to 256 rows of 256 to 4096 columns (the one-warp sum);
otherwise 1 to 256 rows and about 128 MiB of rows, of 256 to 1024 columns (slim_lanes)."""
import json, sys
import torch
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import compare_peers as cp
import normlab_torch as nt
class A: warmup = 3; repetitions = 100
bench = cp.Bench(torch, A)
EPS = cp.EPS
F = torch.nn.functional
label = sys.argv[1]
few = "--few" in sys.argv[3:]
out = {}
for op in ("rms", "ln", "add"):
    for rows in (1, 32, 256) if few else (1, 32, 256, 0):
        for cols in (256, 512, 576, 768, 896, 1024) + ((2048, 4096) if few else ()):
            n = rows or (64 << 20) // (cols * 2) // (2 if op == "add" else 1)  # 0: about 128 MiB moved
            torch.manual_seed(n * cols)
            x = torch.randn(n, cols, device="cuda").bfloat16()
            w = (torch.rand(cols, device="cuda") + 0.5).bfloat16()
            b = torch.randn(cols, device="cuda").bfloat16()
            r = torch.randn(n, cols, device="cuda").bfloat16()
            if op == "rms":
                want = F.rms_norm(x.double(), (cols,), w.double(), EPS)
                f = lambda: nt.rms_norm(x, w, EPS); got = f
                nbytes = 2 * x.numel() * 2
            elif op == "ln":
                want = F.layer_norm(x.double(), (cols,), w.double(), b.double(), EPS)
                f = lambda: nt.layer_norm(x, w, b, EPS); got = f
                nbytes = 2 * x.numel() * 2
            else:
                h = (x.float() + r.float()).bfloat16()
                want = F.rms_norm(h.double(), (cols,), w.double(), EPS)
                xs, rs = x.clone(), r.clone()
                def got():
                    xs.copy_(x); rs.copy_(r); nt.fused_add_rms_norm_(xs, rs, w, EPS); return xs
                f = lambda: nt.fused_add_rms_norm_(xs, rs, w, EPS)
                nbytes = 4 * x.numel() * 2
            e = ((got().double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item()
            assert e <= 1, (op, rows, cols, e)
            src = torch.ones(nbytes // 2, dtype=torch.uint8, device="cuda"); dst = torch.empty_like(src)
            copy = bench.median_ms(lambda: dst.copy_(src)) * 1e3
            t = bench.median_ms(f) * 1e3
            out[f"{op} {n}x{cols}"] = {"us": t, "copy_us": copy}
json.dump(out, open(f"{sys.argv[2]}/ab-{label}.json", "w"), indent=1)
print(label, "done", len(out))
