"""Experiment: 1 to 256 bf16 rows of 256 to 8192 columns. normlab's torch op, the product's slim
kernel launched directly, lean kernels with a small or the product's argument struct, empty
kernels, eager PyTorch and torch.compile, timed in one process as bench/compare_peers.py times."""
import ctypes, itertools, json, os, sys
import torch
sys.path.insert(0, "bench")
import compare_peers as cp
import normlab_torch

class A: warmup = 3; repetitions = 40
bench = cp.Bench(torch, A)
EPS = cp.EPS
F = torch.nn.functional
stream = torch.cuda.current_stream().cuda_stream
lib = ctypes.CDLL(os.path.abspath(sys.argv[1]))
P, I = ctypes.c_void_p, ctypes.c_int
lib.small_lean.argtypes = [I] * 5 + [P] * 4 + [I, I, ctypes.c_float, P]
lib.small_empty.argtypes = [I, P]
lib.small_product.argtypes = [I, ctypes.c_char_p] + [P] * 4 + [I, I, ctypes.c_float, P]
sweep = json.load(open("book/results/sweep/peer_sweep-bf16.json"))
chosen = {(r["op"], r["rows"], r["cols"]): r for r in sweep["rows"]}
SHAPES = [(op, rows, cols) for op in ("rmsnorm", "layernorm") for rows in (1, 32, 256)
          for cols in (256, 1024, 4096)] + [("rmsnorm", 256, 576), ("layernorm", 256, 576),
                                            ("layernorm", 32, 8192), ("layernorm", 1, 8192)]
LEAN = [(32, 1), (8, 4), (16, 4), (32, 3), (32, 4), (0, 1), (0, 2), (0, 4)]
out = {"gpu": torch.cuda.get_device_name(), "backend": normlab_torch.backend(), "rows": []}
out["empty_us"] = {
    "torch _sleep(0)": bench.median_ms(lambda: torch.cuda._sleep(0)) * 1e3,
    "empty, small args": bench.median_ms(lambda: lib.small_empty(0, stream)) * 1e3,
    "empty, Tensors args": bench.median_ms(lambda: lib.small_empty(1, stream)) * 1e3}
print(out["empty_us"], out["backend"])
for op, rows, cols in SHAPES:
    ln = op == "layernorm"
    torch.manual_seed(rows + cols + ln)
    x = (torch.randn(rows, cols, device="cuda") * 2 + 0.5).bfloat16()
    w = (torch.rand(cols, device="cuda") + 0.5).bfloat16()
    b = torch.randn(cols, device="cuda").bfloat16()
    y = torch.empty_like(x)
    if ln:
        want = F.layer_norm(x.double(), (cols,), w.double(), b.double(), EPS)
        eager = lambda: F.layer_norm(x, (cols,), w, b, EPS)
        ours = lambda: normlab_torch.layer_norm(x, w, b, EPS)
    else:
        want = F.rms_norm(x.double(), (cols,), w.double(), EPS)
        eager = lambda: F.rms_norm(x, (cols,), w, EPS)
        ours = lambda: normlab_torch.rms_norm(x, w, EPS)
    compiled = torch.compile(eager, dynamic=False)
    res = {}
    def ok(got):
        return ((got.double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item() <= 1
    def t(name, launch, into_y=True):
        if into_y:
            y.fill_(float("nan")); torch.cuda.synchronize()
            launch(); torch.cuda.synchronize()
            if not ok(y):
                print("  FAILED", name); return
        else:
            if not ok(launch()):
                print("  FAILED", name); return
        res[name] = bench.median_ms(launch) * 1e3
    res["copy_"] = bench.median_ms(lambda: y.copy_(x)) * 1e3
    t("eager", eager, False)
    t("torch.compile", compiled, False)
    t("normlab torch op", ours, False)
    name = chosen[(op, rows, cols)]["normlab_kernel"].split("@")[1]
    code = lib.small_product(ln, name.encode(), x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
    if code > 0:
        t(f"product {name} ({code // 100000} threads, {code % 100000} blocks)",
          lambda: lib.small_product(ln, name.encode(), x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream))
    else:
        print("  product", name, "refused", code)
    chunks = cols // 8
    for g, vec in LEAN:
        if g > 0:
            if g * vec * 8 < cols or g * vec * 8 - cols >= g * 8: continue
            variants = [(g, vec, 128)]
        else:
            threads = -(-chunks // vec)
            threads = -(-threads // 32) * 32
            if threads > 512 or threads * vec * 8 - cols >= threads * 8: continue
            variants = [(0, vec, threads)]
        for g_, vec_, threads in variants:
            for big in (0, 1):
                def go(g_=g_, vec_=vec_, threads=threads, big=big):
                    rc = lib.small_lean(ln, big, g_, vec_, threads, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
                    assert rc == 0, rc
                t(f"lean {'G' + str(g_) if g_ else 'block'}x{vec_} {threads}t {'Tensors' if big else 'small'} args", go)
    print(f"== {op} {rows}x{cols}  (sweep: {chosen[(op, rows, cols)]['normlab_vs_best_peer']:.3f})")
    for k, v in sorted(res.items(), key=lambda kv: kv[1]): print(f"  {k:60s} {v:6.2f}")
    out["rows"].append({"op": op, "rows": rows, "cols": cols, "us": res})
    sys.stdout.flush()
json.dump(out, open(sys.argv[2], "w"), indent=1)
