#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""QK-norm on a head view against the same norm on a contiguous copy (issue 52, point 3).

    python3 bench/head_views.py [--tokens 8192] [--heads 32] [--buffer-heads 48]
        [--head-dim 128] [--dtype bf16] [--warmup 10] [--repetitions 50]

q = qkv[:, :heads, :] of a [tokens, buffer_heads, head_dim] buffer (a fused QKV projection's
output) is normalised by normlab_torch.rms_norm where it lies, its rows two strides apart
(head_dim within a token, buffer_heads * head_dim between tokens). The same call is timed on
q.contiguous() made beforehand (the copy not timed), and on q.contiguous() then the norm (the
copy timed): what a caller that copies pays. Each time is the median, over --repetitions, of CUDA
events around one call behind an L2 flush (bench/compare_peers.py's Bench). The ratios printed
are the head view's time over each of the other two. Without PyTorch or a CUDA GPU it says so
and exits 0.
"""
import argparse
import sys

DTYPES = ("fp32", "fp16", "bf16")


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--heads", type=int, default=32, help="heads normalised (q's)")
    parser.add_argument("--buffer-heads", type=int, default=48, help="heads of the buffer")
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--dtype", choices=DTYPES, default="bf16")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repetitions", type=int, default=50)
    args = parser.parse_args(argv)
    if not 0 < args.heads <= args.buffer_heads:
        parser.error("--heads must be between 1 and --buffer-heads")
    return args


def main(argv):
    args = parse_arguments(argv)
    try:
        import torch
    except ImportError:
        print("head_views: PyTorch is not installed; nothing to measure.")
        return 0
    if not torch.cuda.is_available():
        print("head_views: PyTorch sees no CUDA GPU; nothing to measure.")
        return 0
    import normlab_torch as nt
    from compare_peers import Bench  # beside this script: its L2 flush and CUDA events

    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    bench = Bench(torch, args)
    qkv = torch.randn(args.tokens, args.buffer_heads, args.head_dim, device="cuda").to(dtype)
    weight = torch.rand(args.head_dim, device="cuda").to(dtype) + 0.5
    q = qkv[:, :args.heads, :]
    copy = q.contiguous()
    eps = 1e-6
    if not torch.equal(nt.rms_norm(q, weight, eps), nt.rms_norm(copy, weight, eps)):
        print("head_views: the head view's y differs from the copy's; not timing it")
        return 1
    times = {
        "head view": bench.median_ms(lambda: nt.rms_norm(q, weight, eps)),
        "contiguous copy (copy not timed)": bench.median_ms(lambda: nt.rms_norm(copy, weight, eps)),
        "copy, then the norm": bench.median_ms(lambda: nt.rms_norm(q.contiguous(), weight, eps)),
    }
    print(f"{torch.cuda.get_device_name(0)}, normlab_torch's calls take: {nt.backend()}")
    print(f"rms_norm {args.dtype}: q = qkv[:, :{args.heads}, :] of [{args.tokens}, "
          f"{args.buffer_heads}, {args.head_dim}], strides {tuple(q.stride())}")
    for name, ms in times.items():
        print(f"  {name:34s} {ms * 1e3:9.2f} us")
    view = times["head view"]
    for name, ms in list(times.items())[1:]:
        print(f"  head view / {name:27s} {view / ms:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
