#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What calling normlab from PyTorch costs over the kernel itself, on one small problem.

    python3 python/bench_overhead.py [--op rms_norm|layer_norm]
        [--rows 1] [--cols 4096] [--dtype bf16] [--calls 2000] [--batches 7]

On one row of 4096 bf16 elements the kernel runs for a few microseconds, so the cost of getting
to it shows. Printed, each the median over --batches:
  kernel       the GPU time of one launch through the C ABI: CUDA events around it, the launch
               queued behind a GPU busy-wait so that the CPU's time to launch is not counted;
  C ABI        wall time per call of normlab_run through ctypes with a ready normlab_call,
               --calls calls back to back then one synchronize: the dispatcher's planning and
               the launch, no PyTorch;
  torch op     the same for normlab_torch's function (torch.ops.normlab.*: PyTorch's dispatch,
               the checks, the output's allocation, filling the call);
  torch eager  the same for F.rms_norm / F.layer_norm, for scale.
and the differences: torch op - kernel (what a user pays over the kernel per call) and torch op
- C ABI (what the PyTorch layer adds). Calls back to back are CPU-bound here: the GPU finishes
each kernel before the next call is issued, so wall time per call is the cost of a call.
Without PyTorch or a CUDA GPU it says so and exits 0.
"""
import argparse
import ctypes
import statistics
import sys
import time

DTYPES = ("fp32", "fp16", "bf16")
# The GPU busy-wait before each timed launch (about 50 us at 2 GHz): the launch is queued by then.
HEAD_START_CYCLES = 100_000


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--op", choices=("rms_norm", "layer_norm"), default="rms_norm")
    parser.add_argument("--rows", type=int, default=1)
    parser.add_argument("--cols", type=int, default=4096)
    parser.add_argument("--dtype", choices=DTYPES, default="bf16")
    parser.add_argument("--calls", type=int, default=2000, help="calls per batch")
    parser.add_argument("--batches", type=int, default=7, help="batches; the median is kept")
    return parser.parse_args(argv)


def median_us_per_call(torch, call, calls, batches):
    """Median over batches of the wall time per call of @p calls back-to-back calls."""
    for _ in range(calls // 10 + 1):  # warm-up: caches, the allocator, lazy initialisation
        call()
    torch.cuda.synchronize()
    per_call = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
        per_call.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(per_call)


def kernel_us(torch, launch, repetitions):
    """Median GPU time of one launch, between CUDA events, queued behind a busy-wait."""
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(repetitions)]
    launch()
    for start, stop in events:
        torch.cuda._sleep(HEAD_START_CYCLES)
        start.record()
        launch()
        stop.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(stop) for start, stop in events) * 1e3


def main(argv):
    args = parse_arguments(argv)
    try:
        import torch
    except ImportError:
        print("bench_overhead: PyTorch is not installed; nothing to measure.")
        return 0
    if not torch.cuda.is_available():
        print("bench_overhead: PyTorch sees no CUDA GPU; nothing to measure.")
        return 0
    import torch.nn.functional as F

    import normlab_torch as nt
    from normlab_torch import capi, ops

    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    eps = 1e-5
    x = torch.randn(args.rows, args.cols, device="cuda").to(dtype)
    w = (1 + 0.1 * torch.randn(args.cols, device="cuda")).to(dtype)
    b = (0.1 * torch.randn(args.cols, device="cuda")).to(dtype)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(args.rows, device="cuda"), torch.empty(args.rows, device="cuda")
    layer = args.op == "layer_norm"

    # The C ABI call as normlab_torch fills it, built once.
    call = capi.NormlabCall(
        op=capi.OP_LAYERNORM if layer else capi.OP_RMSNORM, dtype=ops._DTYPES[dtype],
        weight_dtype=ops._DTYPES[dtype], rows=args.rows, cols=args.cols, eps=eps,
        x=x.data_ptr(), x_stride=args.cols, y=y.data_ptr(), y_stride=args.cols,
        weight=w.data_ptr(), bias=b.data_ptr() if layer else None,
        mean=mean.data_ptr() if layer else None, rstd=rstd.data_ptr())
    library = ops._library
    kernel_name, _ = library.plan(call)
    stream = torch.cuda.current_stream().cuda_stream
    run, error = library.dll.normlab_run, ctypes.create_string_buffer(capi.ERROR_CAPACITY)
    call_pointer = ctypes.byref(call)

    def c_abi():
        if run(call_pointer, stream, error, len(error)) != capi.OK:
            raise RuntimeError(error.value.decode())

    if layer:
        def torch_op():
            return nt.layer_norm(x, w, b, eps)

        def eager():
            return F.layer_norm(x, (args.cols,), w, b, eps)
    else:
        def torch_op():
            return nt.rms_norm(x, w, eps)

        def eager():
            return F.rms_norm(x, (args.cols,), w, eps)

    assert torch.allclose(torch_op().float(), eager().float(), atol=5e-2, rtol=5e-2)
    c_abi()
    assert torch.equal(y, torch_op()), "the C ABI call and the op disagree"

    measured = {
        "kernel": kernel_us(torch, c_abi, 101),
        "C ABI": median_us_per_call(torch, c_abi, args.calls, args.batches),
        "torch op": median_us_per_call(torch, torch_op, args.calls, args.batches),
        "torch eager": median_us_per_call(torch, eager, args.calls, args.batches),
    }
    print(f"{torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}, "
          f"{nt.library_path()}")
    print(f"{args.op} {args.rows} x {args.cols} {args.dtype} (weight {args.dtype}), kernel "
          f"{kernel_name}; median of {args.batches} batches of {args.calls} calls")
    for name, us in measured.items():
        print(f"  {name:<12} {us:8.2f} us per call")
    print(f"  torch op - kernel: {measured['torch op'] - measured['kernel']:.2f} us; "
          f"torch op - C ABI: {measured['torch op'] - measured['C ABI']:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
