# SPDX-License-Identifier: Apache-2.0
# Where a training step's backward spends its CPU: torch.profiler over autograd.grad, eager vs normlab.
import statistics
import time

import torch
import torch.nn.functional as F
import normlab_torch as nt
print("backend", nt.backend() if hasattr(nt, "backend") else "?")
from torch.profiler import profile, ProfilerActivity
cols = 4096
x = torch.randn(1, cols, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w = torch.randn(cols, device="cuda", dtype=torch.bfloat16, requires_grad=True)
b = torch.randn(cols, device="cuda", dtype=torch.bfloat16, requires_grad=True)
dy = torch.randn_like(x)
cases = {
  "eager rms": (lambda: F.rms_norm(x, (cols,), w, 1e-6), (x, w)),
  "normlab rms": (lambda: nt.rms_norm(x, w, 1e-6), (x, w)),
  "eager ln": (lambda: F.layer_norm(x, (cols,), w, b, 1e-5), (x, w, b)),
  "normlab ln": (lambda: nt.layer_norm(x, w, b, 1e-5), (x, w, b)),
}
graphs = {k: (f(), leaves) for k, (f, leaves) in cases.items()}
def batch(k, n=2000):
    y, leaves = graphs[k]
    t = time.perf_counter()
    for _ in range(n):
        torch.autograd.grad(y, leaves, dy, retain_graph=True)
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6
for k in graphs: batch(k, 200)
times = {k: [] for k in graphs}
for _ in range(9):
    for k in graphs: times[k].append(batch(k))
for k in graphs: print(f"{k:14s} median {statistics.median(times[k]):7.2f} us  min {min(times[k]):7.2f}  all {[round(v,1) for v in times[k]]}")
# grad of the backward only, no python: time one grad of a graph with the node alone
for k in graphs:
    y, leaves = graphs[k]
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(100):
            torch.autograd.grad(y, leaves, dy, retain_graph=True)
        torch.cuda.synchronize()
    print("=====", k)
    print(p.key_averages().table(sort_by="cpu_time_total", row_limit=30, max_name_column_width=60))
