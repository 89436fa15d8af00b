"""Experiment: a one-row norm's time against copies of its bytes, launched every way (README.md)."""
import ctypes, os, sys
import torch, triton, triton.language as tl
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import compare_peers as cp
import normlab_torch as nt
class A: warmup = 3; repetitions = 60
bench = cp.Bench(torch, A)
EPS = cp.EPS
stream = torch.cuda.current_stream().cuda_stream
cop = ctypes.CDLL(os.path.abspath("book/results/runs/2026-12-04-h200-held-loads/liblatency_kernels.so"))
exp = ctypes.CDLL(os.path.abspath("book/results/runs/2026-12-04-h200-held-loads/libgroup_kernel.so"))
exp.exp_launch.argtypes = [ctypes.c_int]*5 + [ctypes.c_void_p]*4 + [ctypes.c_longlong, ctypes.c_int, ctypes.c_float, ctypes.c_void_p]
for f in (cop.run_copy16, cop.run_copy4): f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
# driver-API launch of the same copy16 from a cubin
cu = ctypes.CDLL("libcuda.so.1")
mod = ctypes.c_void_p(); fn16 = ctypes.c_void_p()
assert cu.cuModuleLoad(ctypes.byref(mod), b"book/results/runs/2026-12-04-h200-held-loads/latency_kernels.cubin") == 0
assert cu.cuModuleGetFunction(ctypes.byref(fn16), mod, b"copy16") == 0
def drv_copy16(x, y, n):
    px = ctypes.c_void_p(x.data_ptr()); py = ctypes.c_void_p(y.data_ptr()); pn = ctypes.c_int(n)
    args = (ctypes.c_void_p * 3)(ctypes.addressof(px), ctypes.addressof(py), ctypes.addressof(pn))
    rc = cu.cuLaunchKernel(fn16, (n + 127) // 128, 1, 1, 128, 1, 1, 0, ctypes.c_void_p(stream), args, None)
    assert rc == 0, rc
@triton.jit
def tcopy(x, y, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)
@triton.jit
def trms(x, w, y, cols, eps, B: tl.constexpr):
    r = tl.program_id(0); o = tl.arange(0, B); m = o < cols
    v = tl.load(x + r * cols + o, mask=m, other=0.).to(tl.float32)
    wv = tl.load(w + o, mask=m, other=0.).to(tl.float32)
    rs = tl.rsqrt(tl.sum(v * v, 0) / cols + eps)
    tl.store(y + r * cols + o, (v * rs * wv).to(tl.bfloat16), mask=m)
F = torch.nn.functional
print("empty", round(bench.median_ms(lambda: torch.cuda._sleep(0)) * 1e3, 2))
for rows, cols in ((1, 256), (1, 512), (1, 1024), (32, 512), (1, 4096)):
    x = torch.randn(rows, cols, device="cuda").bfloat16(); w = torch.rand(cols, device="cuda").bfloat16() + 0.5
    y = torch.empty_like(x); n16 = x.numel() // 8; n4 = x.numel() // 2
    want = F.rms_norm(x.double(), (cols,), w.double(), EPS)
    res = {}
    def t(name, f, check=None):
        f(); torch.cuda.synchronize()
        if check is not None:
            e = ((check().double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item()
            assert e <= 1, (name, e)
        res[name] = bench.median_ms(f) * 1e3
    t("torch copy_", lambda: y.copy_(x))
    t("nvcc copy16 (runtime)", lambda: cop.run_copy16(x.data_ptr(), y.data_ptr(), n16, stream))
    t("nvcc copy4 (runtime)", lambda: cop.run_copy4(x.data_ptr(), y.data_ptr(), n4, stream))
    t("nvcc copy16 (driver)", lambda: drv_copy16(x, y, n16))
    for B in (128, 1024):
        t(f"triton copy B{B}", lambda: tcopy[(triton.cdiv(x.numel(), B),)](x, y, x.numel(), B=B))
    BB = triton.next_power_of_2(cols)
    for nw in (1, 2, 4, 8):
        def tr(): trms[(rows,)](x, w, y, cols, EPS, B=BB, num_warps=nw); return y
        t(f"triton rms nw{nw}", tr, tr)
    if (rows, cols) == (1, 512):
        cf = torch.compile(lambda x, w: F.rms_norm(x, (cols,), w, EPS), dynamic=False)
        t("torch.compile rms", lambda: cf(x, w), lambda: cf(x, w))
    t("normlab rms", lambda: nt.rms_norm(x, w, EPS), lambda: nt.rms_norm(x, w, EPS))
    vec = max(1, cols // 256)
    if vec <= 8:
        def g(): exp.exp_launch(0, 32, vec, 32, 0, x.data_ptr(), w.data_ptr(), w.data_ptr(), y.data_ptr(), rows, cols, EPS, stream); return y
        t(f"group g32v{vec}t32", g, g)
    print(f"== {rows}x{cols}")
    for k, v in sorted(res.items(), key=lambda kv: kv[1]): print(f"  {k:24s} {v:6.2f}")
    sys.stdout.flush()
