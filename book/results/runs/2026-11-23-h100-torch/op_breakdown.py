# Where a normlab_torch call's time goes, 1 x 4096 bf16 RMSNorm (exploration, not committed).
import time
import torch
import torch.nn.functional as F
import normlab_torch as nt
from normlab_torch import ops

x = torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)


def per_call(f, n=3000):
    for _ in range(200):
        f()
    torch.cuda.synchronize()
    best = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            f()
        torch.cuda.synchronize()
        best.append((time.perf_counter() - t) / n * 1e6)
    return sorted(best)[2]


def body():  # the custom op's Python body, without PyTorch's dispatch
    y, rstd = ops._rms_norm_outputs(x, w, 1e-5, False)
    ops._run(ops.capi.OP_RMSNORM, 1e-5, False, x=x, y=y, weight=w, rstd=rstd)


def empties():
    return torch.empty_like(x), torch.empty(1, device="cuda")


rows = {
    "nt.rms_norm (grad enabled)": lambda: nt.rms_norm(x, w, 1e-5),
    "torch.ops.normlab.rms_norm": lambda: torch.ops.normlab.rms_norm(x, w, 1e-5, False),
    "op body alone (checks, ctypes, launch)": body,
    "two torch.empty": empties,
    "F.rms_norm": lambda: F.rms_norm(x, (4096,), w, 1e-5),
}
with torch.no_grad():
    rows["nt.rms_norm under no_grad"] = None
for name, f in rows.items():
    if f is None:
        with torch.no_grad():
            print(f"{name:40s} {per_call(lambda: nt.rms_norm(x, w, 1e-5)):8.2f} us")
    else:
        print(f"{name:40s} {per_call(f):8.2f} us")
