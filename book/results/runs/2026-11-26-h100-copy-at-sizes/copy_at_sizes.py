#!/usr/bin/env python3
# A torch copy_ of each comparison row's x (same bytes read and written as a norm's x -> y), timed
# exactly as bench/compare_peers.py times every column (Bench.median_ms: L2 flushed, events around
# one launch), as a percentage of the same run's copy roof (copy_ of 512 MiB). Two copies:
# torch's copy_ (cudaMemcpyAsync, device to device) and a torch.compile'd x * 1 (a Triton kernel).
import sys, types
sys.path.insert(0, "bench")
import compare_peers as cp
import torch
args = types.SimpleNamespace(warmup=10, repetitions=50)
bench = cp.Bench(torch, args)
roof = bench.copy_roof_gbps()
print(f"GPU {torch.cuda.get_device_name(0)}; copy roof {roof:.1f} GB/s (copy_ of 512 MiB)")
rows = [(16384, 4096, torch.bfloat16), (4096, 8192, torch.bfloat16), (4096, 5000, torch.bfloat16),
        (8192, 576, torch.bfloat16), (512, 65536, torch.bfloat16), (2048, 8192, torch.float32),
        (1024, 1024, torch.float32), (16, 4194304, torch.float32), (2, 9437184, torch.float32),
        (32, 4096, torch.bfloat16), (1, 4096, torch.bfloat16)]
scale = torch.compile(lambda x: x * 1, dynamic=False)
for m, n, dt in rows:
    src = torch.randn(m, n, device="cuda").to(dt)
    dst = torch.empty_like(src)
    moved = 2 * src.numel() * src.element_size()
    for rep in range(2):
        for name, launch in (("copy_", lambda: dst.copy_(src)), ("compiled x * 1", lambda: scale(src))):
            ms = bench.median_ms(launch)
            print(f"{m} x {n} {str(dt).split('.')[-1]}: {name} {ms * 1000:.2f} us, "
                  f"{100 * moved / (ms * 1e6) / roof:.1f}% of the copy roof (round {rep + 1})")
