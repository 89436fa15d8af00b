#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a kernel that only streams a row's bytes reaches, at the shapes whose targets are open.

    python3 stream_ceiling.py [--rounds N] [--repetitions N]

For each shape, PyTorch's own elementwise kernels move the bytes a norm must move, with no
reduction and no wait between reading a row and writing it: a copy of x into y, and y = x * w
(+ b) with the parameters broadcast over the rows (for the backward rows, dx = x + dy: two
tensors read, one written). They are timed exactly as bench/compare_peers.py times every
column (its Bench: the L2 flushed before each repetition, a GPU busy-wait ahead of the start
event, CUDA events, the median), in the same process as the copy roof (torch's copy_ of 512
MiB), and reported two ways: the op's own bytes over its time, and normlab's bytes model of the
norm over the op's time (the share of the copy roof a norm would show if it took as long as the
op). A norm target above the second figure asks a norm to beat a kernel that streams the same
bytes and does nothing else.
"""
import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(REPO / "bench"))
import compare_peers  # noqa: E402  (Bench, Problem: the comparison tool's timing and bytes)

# (the norm the target is for, its target as % of the copy roof)
TARGETS = [
    (compare_peers.Problem("rmsnorm", 512, 65536, "bf16", ""), 93.0),
    (compare_peers.Problem("layernorm", 16, 4194304, "fp32", ""), 85.0),
    (compare_peers.Problem("layernorm", 2, 9437184, "fp32", ""), 80.0),
    (compare_peers.Problem("rmsnorm_backward", 2048, 8192, "fp32", ""), 85.0),
    (compare_peers.Problem("layernorm_backward", 2048, 8192, "fp32", ""), 85.0),
]


def streams(torch, problem):
    """(name, bytes it moves, launch) for the elementwise ops standing in for @p problem."""
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[problem.dtype]
    m, n = problem.rows, problem.cols
    size = compare_peers.DTYPE_BYTES[problem.dtype]
    x = torch.randn(m, n, device="cuda", dtype=dtype)
    y = torch.empty_like(x)
    w = torch.randn(n, device="cuda", dtype=dtype)
    b = torch.randn(n, device="cuda", dtype=dtype)
    if problem.is_backward():
        dy = torch.randn_like(x)
        return [("dx = x + dy", 3 * m * n * size, lambda: torch.add(x, dy, out=y))]
    ops = [("y = copy of x", 2 * m * n * size, lambda: y.copy_(x)),
           ("y = -x", 2 * m * n * size, lambda: torch.neg(x, out=y))]
    if not problem.is_layernorm():
        ops += triton_scales(torch, x, w, y)
    if problem.is_layernorm():
        ops.append(("y = x * w + b", 2 * m * n * size + 2 * n * size,
                    lambda: torch.addcmul(b, x, w, out=y)))
    else:
        ops.append(("y = x * w", 2 * m * n * size + n * size, lambda: torch.mul(x, w, out=y)))
    return ops


def triton_scales(torch, x, w, y):
    """y = x * w by a Triton kernel of one row's slice a program, at a few slice widths: a
    streaming kernel with the weight, which PyTorch's broadcast multiply is not (it does not
    vectorise a broadcast operand)."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return []

    @triton.jit
    def scale(x_ptr, w_ptr, y_ptr, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offsets = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        keep = offsets < cols
        x_row = tl.load(x_ptr + row * cols + offsets, mask=keep, eviction_policy="evict_first")
        w_row = tl.load(w_ptr + offsets, mask=keep, eviction_policy="evict_last")
        tl.store(y_ptr + row * cols + offsets, x_row * w_row, mask=keep)

    m, n = x.shape
    ops = []
    for block, warps in ((2048, 4), (4096, 8), (8192, 8), (16384, 16)):
        def launch(block=block, warps=warps):
            scale[(m, triton.cdiv(n, block))](x, w, y, n, BLOCK=block, num_warps=warps)
        launch()
        torch.testing.assert_close(y, x * w)
        ops.append((f"Triton x*w {block}/{warps}", 2 * x.numel() * x.element_size()
                    + n * w.element_size(), launch))
    return ops


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=30)
    args = parser.parse_args(argv)
    import torch

    bench = compare_peers.Bench(torch, SimpleNamespace(warmup=3, repetitions=args.repetitions))
    name = torch.cuda.get_device_name(0)
    print(f"{name}, driver {compare_peers.driver_version()}, torch {torch.__version__}")
    for round_ in range(1, args.rounds + 1):
        roof = bench.copy_roof_gbps()
        print(f"\nround {round_}: copy roof {roof:.0f} GB/s (torch copy_ of 512 MiB)")
        print(f"{'norm and its target':<44} {'op':<30} {'us':>8} {'own bytes':>10} "
              f"{'as the norm':>12}")
        for problem, target in TARGETS:
            label = f"{problem.describe()} ({target:.0f}%)"
            for op, moved, launch in streams(torch, problem):
                # The copy also without the flush, as the roof itself is timed: what the flush
                # before every repetition costs a kernel of this size.
                for flush in (True, False) if op.startswith("y = copy") else (True,):
                    ms = bench.median_ms(launch, flush=flush)
                    own = 100 * moved / (ms * 1e6) / roof
                    as_norm = 100 * problem.bytes_moved() / (ms * 1e6) / roof
                    name = op if flush else op + ", L2 not flushed"
                    print(f"{label:<44} {name:<30} {1000 * ms:8.1f} {own:9.1f}% {as_norm:11.1f}%")
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
