"""Experiment: 1 to 256 wide bf16 rows on a cluster: the product's kernel, lean variants, a copy."""
import ctypes, itertools, json, os, sys
import torch
sys.path.insert(0, "bench")
import compare_peers as cp

class A: warmup = 3; repetitions = 40
bench = cp.Bench(torch, A)
EPS = cp.EPS
stream = torch.cuda.current_stream().cuda_stream
lib = ctypes.CDLL(os.path.abspath(sys.argv[1]))
P = ctypes.c_void_p
lib.few_launch.argtypes = [ctypes.c_int] * 5 + [P] * 4 + [ctypes.c_int, ctypes.c_int, ctypes.c_float, P]
lib.few_product.argtypes = [ctypes.c_int] + [P] * 4 + [ctypes.c_int, ctypes.c_int, ctypes.c_float, P]
lib.few_copy.argtypes = [P, P, ctypes.c_int, P]
ROW = hasattr(lib, "few_product_row")  # built with cluster_row.cu (the second run)
if ROW:
    lib.few_product_row.argtypes = [ctypes.c_int] * 3 + [P] * 4 + [ctypes.c_int, ctypes.c_int, ctypes.c_float, P]
ROWS = [int(r) for r in sys.argv[3].split(",")] if len(sys.argv) > 3 else [1, 32, 256]
F = torch.nn.functional
BITS = {0: "lean: x and then params in registers, whole barrier first",
        1: "+ params loaded with x", 2: "+ barrier split around the loads", 3: "+ both",
        4: "x through smem (cp.async)", 7: "all three", 11: "both + LN one exchange"}
out = {"gpu": torch.cuda.get_device_name(), "empty_us": bench.median_ms(lambda: torch.cuda._sleep(0)) * 1e3, "rows": []}
print("empty kernel", round(out["empty_us"], 2), "us")
for ln, rows, cols in itertools.product((0, 1), ROWS, (24576, 32768, 65536)):
    torch.manual_seed(rows + cols + ln)
    x = (torch.randn(rows, cols, device="cuda") * 2 + 0.5).bfloat16()
    w = (torch.rand(cols, device="cuda") + 0.5).bfloat16()
    b = torch.randn(cols, device="cuda").bfloat16()
    y = torch.empty_like(x)
    if ln:
        want = F.layer_norm(x.double(), (cols,), w.double(), b.double(), EPS)
    else:
        want = F.rms_norm(x.double(), (cols,), w.double(), EPS)
    res = {}
    def t(name, launch, checked=True):
        y.fill_(float("nan")); torch.cuda.synchronize()
        launch(); torch.cuda.synchronize()
        if checked:
            e = ((y.double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item()
            if not e <= 1:
                print("  FAILED", name, e); return
        res[name] = bench.median_ms(launch) * 1e3
    t("copy16", lambda: lib.few_copy(x.data_ptr(), y.data_ptr(), x.numel() // 8, stream), False)
    t("torch copy_", lambda: y.copy_(x), False)
    code = lib.few_product(ln, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
    t(f"product (cluster {code // 1000}x{code % 1000})",
      lambda: lib.few_product(ln, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream))
    chunks = cols // 8
    for threads, vectors in itertools.product((128, 256), (1, 2, 4, 8)) if ROW else ():
        blocks = -(-chunks // (threads * vectors))
        if blocks > 16: continue
        t(f"product row {threads}x{vectors} ({blocks} blocks)",
          lambda threads=threads, vectors=vectors: lib.few_product_row(ln, threads, vectors, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream))
    for blocks, threads in itertools.product((2, 4, 8, 16), (128, 256, 512)):
        need = -(-chunks // (blocks * threads))
        vec = next((v for v in (1, 2, 3, 4, 6, 8) if v >= need), None)
        if vec is None or (threads == 512 and vec >= 6) or blocks * threads * vec * 8 - cols >= blocks * threads * 8:
            continue
        if ROW and (blocks * threads * vec * 8 != cols):
            continue  # the second run: shapes that fill the row exactly (no padded chunks)
        for bits in BITS:
            if bits & 8 and not ln: continue
            def go(bits=bits, blocks=blocks, threads=threads, vec=vec):
                rc = lib.few_launch(ln, vec, bits, blocks, threads, x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
                assert rc == 0, rc
            t(f"{blocks:2d}x{threads:3d} v{vec} b{bits:02d} {BITS[bits]}", go)
    op = "layernorm" if ln else "rmsnorm"
    print(f"== {op} {rows}x{cols}")
    for k, v in sorted(res.items(), key=lambda kv: kv[1])[:14]: print(f"  {k:70s} {v:6.2f}")
    out["rows"].append({"op": op, "rows": rows, "cols": cols, "us": res})
    sys.stdout.flush()
json.dump(out, open(sys.argv[2], "w"), indent=1)
