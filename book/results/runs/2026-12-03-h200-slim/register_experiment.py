import ctypes, os, sys, time, statistics, json
import torch
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import compare_peers as cp
EPS = cp.EPS
lib = ctypes.CDLL(os.path.abspath(".deps/run4/libexp.so"))
lib.exp_launch.argtypes = [ctypes.c_int]*4 + [ctypes.c_void_p]*4 + [ctypes.c_longlong]*2 + [ctypes.c_float, ctypes.c_void_p]
lib.exp_regs.argtypes = [ctypes.c_int]*4
class A: warmup = 3; repetitions = 30
bench = cp.Bench(torch, A)
cp.configure_dynamo(torch)
try:
    import normlab_torch as nt
    have_nt = True
except Exception as e:
    print("normlab_torch:", e); have_nt = False
F = torch.nn.functional
def ref(op, x, w, b):
    xd = x.double()
    if op == "ln":
        m = xd.mean(-1, keepdim=True); v = ((xd - m) ** 2).mean(-1, keepdim=True)
        return (xd - m) / torch.sqrt(v + EPS) * w.double() + b.double()
    return xd / torch.sqrt((xd * xd).mean(-1, keepdim=True) + EPS) * w.double()
shapes = [
 ("rms", 4096, 8192, [2, 4, 8]), ("rms", 8192, 4096, [1, 2, 4]), ("rms", 16384, 4096, [2, 4]),
 ("rms", 2048, 16384, [4, 8]), ("rms", 32768, 2048, [1, 2, 4]), ("rms", 65536, 1024, [1, 2]),
 ("rms", 1, 4096, [1, 2, 4]), ("rms", 32, 4096, [1, 2, 4]), ("rms", 256, 8192, [2, 4]),
 ("ln", 4096, 8192, [2, 4]), ("ln", 4096, 16384, [4]), ("ln", 8192, 4096, [1, 2, 4]),
 ("ln", 16384, 4096, [2, 4]), ("ln", 8192, 576, [1, 2]), ("ln", 1, 4096, [1, 2]), ("ln", 32768, 2048, [1, 2]),
]
out = []
g = torch.Generator(device="cuda").manual_seed(1)
for op, rows, cols, vecs in shapes:
    x = torch.randn(rows, cols, generator=g, device="cuda").bfloat16()
    w = (1 + 0.6 * (torch.rand(cols, generator=g, device="cuda") - 0.5)).bfloat16()
    b = (0.5 * torch.randn(cols, generator=g, device="cuda")).bfloat16()
    want = ref(op, x, w, b)
    def err(y):
        return ((y.double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item()
    res = {}
    fn = (lambda x, w, b: F.rms_norm(x, (cols,), w, EPS)) if op == "rms" else (lambda x, w, b: F.layer_norm(x, (cols,), w, b, EPS))
    cf = torch.compile(fn, dynamic=False)
    y = cf(x, w, b); e = err(y)
    res["torch.compile"] = (bench.median_ms(lambda: cf(x, w, b)) * 1e3, e, 0)
    if have_nt:
        try:
            nf = (lambda: nt.rms_norm(x, w, EPS)) if op == "rms" else (lambda: nt.layer_norm(x, w, b, EPS))
            e = err(nf()); res["normlab"] = (bench.median_ms(nf) * 1e3, e, 0)
        except Exception as ex:
            print("normlab failed", ex)
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream().cuda_stream
    for vec in vecs:
        for mode in (0, 1, 2):
            for k64 in (0, 1):
                ln = 1 if op == "ln" else 0
                def launch():
                    rc = lib.exp_launch(ln, vec, mode, k64, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
                    assert rc == 0, rc
                y.fill_(float("nan")); launch(); torch.cuda.synchronize(); e = err(y)
                res[f"v{vec}m{mode}{'L' if k64 else 'I'}"] = (bench.median_ms(launch) * 1e3, e, lib.exp_regs(ln, vec, mode, k64))
    tc = res["torch.compile"][0]
    print(f"== {op} {rows}x{cols}")
    for k, (us, e, r) in sorted(res.items(), key=lambda kv: kv[1][0]):
        print(f"  {k:14s} {us:8.2f} us  tc/this {tc/us:5.3f}  err {e:5.2f}  regs {r}")
    sys.stdout.flush()
    out.append({"op": op, "rows": rows, "cols": cols, "res": res})
json.dump(out, open(os.environ.get("OUT", ".") + "/exp.json", "w"), indent=1)
