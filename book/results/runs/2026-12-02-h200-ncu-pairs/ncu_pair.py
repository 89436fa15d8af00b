# One call of normlab's torch op and one of torch.compile's kernel per shape, inside an NVTX
# range "prof", for Nsight Compute to profile side by side.
import sys
import torch
import torch.nn.functional as F
import normlab_torch as nt

torch.manual_seed(0)
cases = [("rmsnorm", 1, 4096), ("rmsnorm", 8192, 4096), ("layernorm", 1, 4096),
         ("layernorm", 8192, 4096), ("layernorm", 1, 32768), ("rmsnorm", 256, 32768),
         ("rmsnorm", 32, 1024)]
for op, rows, cols in cases:
    x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16) * 2 + 0.5
    w = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
    if op == "rmsnorm":
        ours = lambda: nt.rms_norm(x, w, 1e-5)
        comp = torch.compile(lambda x, w: F.rms_norm(x, (cols,), w, 1e-5), dynamic=False)
        theirs = lambda: comp(x, w)
    else:
        ours = lambda: nt.layer_norm(x, w, b, 1e-5)
        comp = torch.compile(lambda x, w, b: F.layer_norm(x, (cols,), w, b, 1e-5), dynamic=False)
        theirs = lambda: comp(x, w, b)
    for _ in range(3):
        ours(); theirs()
    torch.cuda.synchronize()
    d = (ours().float() - theirs().float()).abs().max().item()
    print(op, rows, cols, "max |ours - compiled| =", d, flush=True)
    torch.cuda.nvtx.range_push("prof")
    ours(); theirs()
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
