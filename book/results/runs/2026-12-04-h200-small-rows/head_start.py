"""Experiment: does the gap between the L2 flush and the timed kernel change which slim
configuration wins on few rows? The product's configurations (held parameters or not) and the
lean kernel, timed as bench/compare_peers.py times, with head starts from none (the tuner's
regime: the flush, then the events) to the comparison tool's 500000 cycles."""
import ctypes, json, os, sys
import torch
sys.path.insert(0, "bench")
import compare_peers as cp

class A: warmup = 3; repetitions = 40
bench = cp.Bench(torch, A)
EPS = cp.EPS
F = torch.nn.functional
stream = torch.cuda.current_stream().cuda_stream
lib = ctypes.CDLL(os.path.abspath(sys.argv[1]))
P, I = ctypes.c_void_p, ctypes.c_int
lib.small_lean.argtypes = [I] * 5 + [P] * 4 + [I, I, ctypes.c_float, P]
lib.small_product.argtypes = [I, ctypes.c_char_p] + [P] * 4 + [I, I, ctypes.c_float, P]
CONFIGS = ["slim_lanes32x3", "slim_lanes32x4", "slim1_held", "slim2", "slim2_held", "slim4_held"]
SHAPES = [("layernorm", 1, 256, (32, 1)), ("layernorm", 256, 576, (32, 3)),
          ("rmsnorm", 1, 1024, (32, 4)), ("layernorm", 32, 1024, (32, 4))]
HEAD = [0, 10_000, 40_000, 100_000, 500_000]
out = {"gpu": torch.cuda.get_device_name(), "rows": []}
cp.SM_CYCLES_PER_SECOND = 0  # the head start is HEAD_START_CYCLES alone
for op, rows, cols, (g, vec) in SHAPES:
    ln = op == "layernorm"
    torch.manual_seed(rows + cols + ln)
    x = (torch.randn(rows, cols, device="cuda") * 2 + 0.5).bfloat16()
    w = (torch.rand(cols, device="cuda") + 0.5).bfloat16()
    b = torch.randn(cols, device="cuda").bfloat16()
    y = torch.empty_like(x)
    want = (F.layer_norm(x.double(), (cols,), w.double(), b.double(), EPS) if ln
            else F.rms_norm(x.double(), (cols,), w.double(), EPS))
    launches = {}
    for name in CONFIGS:
        go = lambda name=name: lib.small_product(ln, name.encode(), x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
        if go() > 0: launches[name] = go
    launches[f"lean G{g}x{vec}"] = lambda: lib.small_lean(ln, 0, g, vec, 128, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
    res = {}
    for name, go in launches.items():
        y.fill_(float("nan")); go(); torch.cuda.synchronize()
        if not ((y.double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item() <= 1:
            print("FAILED", name); continue
        res[name] = {}
        for h in HEAD:
            cp.HEAD_START_CYCLES = h
            res[name][h] = bench.median_ms(go) * 1e3
    print(f"== {op} {rows}x{cols}   us at head start (cycles) {HEAD}")
    for name, r in sorted(res.items(), key=lambda kv: kv[1][HEAD[-1]]):
        print(f"  {name:22s} " + " ".join(f"{r[h]:6.2f}" for h in HEAD))
    out["rows"].append({"op": op, "rows": rows, "cols": cols, "us": res})
    sys.stdout.flush()
json.dump(out, open(sys.argv[2], "w"), indent=1)
