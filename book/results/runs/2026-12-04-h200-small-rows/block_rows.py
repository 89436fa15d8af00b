"""Experiment: the product's slim kernels of a block a row beside the lean block kernel with one
of the product's differences at a time (block_rows.cu's bits), bf16, timed as
bench/compare_peers.py times, two rounds in one process."""
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
lib.small_block_rows.argtypes = [I] * 3 + [P] * 4 + [I, I, ctypes.c_float, P]
lib.small_product.argtypes = [I, ctypes.c_char_p] + [P] * 4 + [I, I, ctypes.c_float, P]
SHAPES = [("layernorm", 1, 1024, "slim1_held"), ("layernorm", 1, 4096, "slim1_held"),
          ("layernorm", 32, 4096, "slim2_held"), ("layernorm", 1, 8192, "slim1_held"),
          ("layernorm", 32, 2048, "slim2_held"), ("layernorm", 256, 2048, "slim1_held"),
          ("rmsnorm", 1, 4096, "slim2_held"), ("rmsnorm", 32, 2048, "slim1_held")]
BITS = {0: "lean block", 1: "+ Tensors", 2: "+ block_sum (two barriers a sum)",
        4: "+ 64-bit row loop", 7: "all three"}
out = {"gpu": torch.cuda.get_device_name(), "rounds": 2, "rows": []}
for op, rows, cols, config in SHAPES:
    ln = op == "layernorm"
    vec = 2 if config.startswith("slim2") else 1
    torch.manual_seed(rows + cols + ln)
    x = (torch.randn(rows, cols, device="cuda") * 2 + 0.5).bfloat16()
    w = (torch.rand(cols, device="cuda") + 0.5).bfloat16()
    b = torch.randn(cols, device="cuda").bfloat16()
    y = torch.empty_like(x)
    want = (F.layer_norm(x.double(), (cols,), w.double(), b.double(), EPS) if ln
            else F.rms_norm(x.double(), (cols,), w.double(), EPS))
    args = (x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
    launches = {f"product {config}": lambda: lib.small_product(ln, config.encode(), *args)}
    for bits, name in BITS.items():
        launches[f"{name} (v{vec})"] = lambda bits=bits: lib.small_block_rows(ln, vec, bits, *args)
    res = {}
    for name, go in launches.items():
        y.fill_(float("nan")); rc = go(); torch.cuda.synchronize()
        if rc < 0 or not ((y.double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item() <= 1:
            print("FAILED", name, rc); continue
        res[name] = []
    for _ in range(2):
        for name in res:
            res[name].append(round(bench.median_ms(launches[name]) * 1e3, 3))
    print(f"== {op} {rows}x{cols}")
    for name, t in res.items():
        print(f"  {name:45s} " + " ".join(f"{v:6.2f}" for v in t))
    out["rows"].append({"op": op, "rows": rows, "cols": cols, "us": res})
    sys.stdout.flush()
with open(sys.argv[2], "w") as f:
    f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items() if k != "rows"))
    f.write(',\n "rows": [\n' + ",\n".join("  " + json.dumps(r) for r in out["rows"]) + "\n ]\n}\n")
