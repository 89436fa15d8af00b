"""Experiment: what a one-row RMSNorm pays over a copy (gap.cu's variants, Triton, normlab)."""
import ctypes, os, sys
import torch, triton, triton.language as tl
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import compare_peers as cp
import normlab_torch as nt
class A: warmup = 3; repetitions = 80
bench = cp.Bench(torch, A)
EPS = cp.EPS
stream = torch.cuda.current_stream().cuda_stream
lib = ctypes.CDLL(os.path.abspath(".deps/run8/libgap.so"))
lib.gap_launch.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_float, ctypes.c_void_p]
lib.gap_copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
@triton.jit
def trms(x, w, y, cols, eps, B: tl.constexpr):
    r = tl.program_id(0); o = tl.arange(0, B); m = o < cols
    v = tl.load(x + r * cols + o, mask=m, other=0.).to(tl.float32)
    wv = tl.load(w + o, mask=m, other=0.).to(tl.float32)
    rs = tl.rsqrt(tl.sum(v * v, 0) / cols + eps)
    tl.store(y + r * cols + o, (v * rs * wv).to(tl.bfloat16), mask=m)
F = torch.nn.functional
NAMES = {0: "lean (no loop, shuffles, x*1/cols, plain loads, small params)", 1: "+ grid-stride loop", 2: "+ smem block_sum",
         4: "+ IEEE division", 8: "+ asm loads", 15: "all four", 16: "big params (+loop, IEEE div)", 26: "big + smem + asm", 31: "big + all"}
x = torch.randn(1, 256, device="cuda").bfloat16(); w = torch.rand(256, device="cuda").bfloat16()
from torch.profiler import profile, ProfilerActivity
nt.rms_norm(x, w, EPS); torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    for _ in range(3): nt.rms_norm(x, w, EPS)
    torch.cuda.synchronize()
print("normlab kernels per 3 calls:", [(e.key, e.count) for e in prof.key_averages()])
print("explain:", nt.explain(x, w, EPS) if hasattr(nt, "explain") else "")
print("empty", round(bench.median_ms(lambda: torch.cuda._sleep(0)) * 1e3, 2))
for rows, cols in ((1, 256), (1, 512), (1, 1024), (32, 512), (256, 1024)):
    torch.manual_seed(rows * cols)
    x = torch.randn(rows, cols, device="cuda").bfloat16(); w = torch.rand(cols, device="cuda").bfloat16() + 0.5
    y = torch.empty_like(x)
    want = F.rms_norm(x.double(), (cols,), w.double(), EPS)
    res = {}
    def t(name, f, check=None):
        f(); torch.cuda.synchronize()
        if check is not None:
            e = ((check().double() - want).abs() / (0.01 + 0.01 * want.abs())).max().item()
            assert e <= 1, (name, e)
        res[name] = bench.median_ms(f) * 1e3
    t("copy16", lambda: lib.gap_copy(x.data_ptr(), y.data_ptr(), x.numel() // 8, stream))
    t("torch copy_", lambda: y.copy_(x))
    BB = triton.next_power_of_2(cols)
    for nw in (1, 2):
        def tr(): trms[(rows,)](x, w, y, cols, EPS, B=BB, num_warps=nw); return y
        t(f"triton nw{nw}", tr, tr)
    t("normlab op", lambda: nt.rms_norm(x, w, EPS), lambda: nt.rms_norm(x, w, EPS))
    for bits, name in NAMES.items():
        def g(bits=bits):
            y.fill_(float("nan")); torch.cuda.synchronize()
            assert lib.gap_launch(bits, x.data_ptr(), w.data_ptr(), y.data_ptr(), rows, cols, EPS, stream) == 0
            return y
        g()
        def run(bits=bits): lib.gap_launch(bits, x.data_ptr(), w.data_ptr(), y.data_ptr(), rows, cols, EPS, stream)
        t(f"v{bits:02d} {name}", run, g)
    print(f"== {rows}x{cols}")
    for k, v in sorted(res.items(), key=lambda kv: kv[1]): print(f"  {k:64s} {v:6.2f}")
    sys.stdout.flush()
