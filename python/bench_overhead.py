#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What calling normlab from PyTorch costs the CPU, beside PyTorch's own op and the peers.

    python3 python/bench_overhead.py [--rows 1] [--cols 4096] [--dtype bf16] [--calls 2000]
        [--batches 7]

On one row of 4096 bf16 elements a kernel runs for a few microseconds, so the cost of getting
to it shows. Every call is timed the same way, in one process: --calls calls back to back, then
one synchronize; the wall time per call, median over --batches, an op's columns timed a batch
each in turn (so that the machine's drift over the run reaches them alike). Calls back to back
are bound by the CPU here (the GPU finishes each kernel before the next is issued), so that is
what a call costs the CPU. For each op, the columns that bench/compare_peers.py times (its
launchers, so both tools call each library the same way), those installed:
  torch eager   PyTorch's own: F.rms_norm, F.layer_norm; add + RMSNorm as x + r then
                F.rms_norm; and F.rms_norm alone, the bar the fused add is held to
  normlab _C    normlab_torch's function through its compiled extension (normlab_torch._C)
  normlab ctypes  the same function with the extension set aside: the Python path and ctypes
  Liger, QuACK  where they import
The ratio is that of the path normlab_torch takes here (normlab_torch.backend()) to eager.
Backward rows time one torch.autograd.grad through a graph built once (retain_graph), the
gradients of x and the parameters: a training step's backward through autograd.
Then the C ABI alone (normlab_run through ctypes with a ready normlab_call: the checks, the kept
plan and the launch, no PyTorch) and the kernel's GPU time (CUDA events around one launch
queued behind a GPU busy-wait, so that the CPU's time to launch is not counted).
Without PyTorch or a CUDA GPU it says so and exits 0.
"""
import argparse
import contextlib
import ctypes
import functools
import importlib.util
import statistics
import sys
import time
from pathlib import Path

DTYPES = ("fp32", "fp16", "bf16")
# The GPU busy-wait before each timed launch (about 50 us at 2 GHz): the launch is queued by then.
HEAD_START_CYCLES = 100_000


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1)
    parser.add_argument("--cols", type=int, default=4096)
    parser.add_argument("--dtype", choices=DTYPES, default="bf16")
    parser.add_argument("--calls", type=int, default=2000, help="calls per batch")
    parser.add_argument("--batches", type=int, default=7, help="batches; the median is kept")
    return parser.parse_args(argv)


def time_batch(torch, call, calls):
    """The wall time per call, in us, of @p calls back-to-back calls and one synchronize."""
    start = time.perf_counter()
    for _ in range(calls):
        call()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def warm_up(torch, call, calls):
    for _ in range(calls // 10 + 1):  # caches, the allocator, lazy initialisation
        call()
    torch.cuda.synchronize()


def median_us_per_call(torch, call, calls, batches):
    """Median over batches of the wall time per call of @p calls back-to-back calls."""
    warm_up(torch, call, calls)
    return statistics.median(time_batch(torch, call, calls) for _ in range(batches))


def interleaved_medians(torch, cells, calls, batches):
    """For each of @p cells ({name: (call, context)}), the median over batches of the wall time
    per call, the batches of the cells taken in turn (round r starts at cell r), so that a
    machine's drift over the run (clocks, other processes) reaches every cell alike. Each batch
    runs inside its cell's context (a fresh one per batch)."""
    names = list(cells)
    for name in names:
        call, context = cells[name]
        with context():
            warm_up(torch, call, calls)
    times = {name: [] for name in names}
    for round_ in range(batches):
        for i in range(len(names)):
            name = names[(round_ + i) % len(names)]
            call, context = cells[name]
            with context():
                times[name].append(time_batch(torch, call, calls))
    return {name: statistics.median(values) for name, values in times.items()}


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


def load_compare_peers():
    """bench/compare_peers.py as a module: its inputs, launchers and peers."""
    path = Path(__file__).resolve().parents[1] / "bench" / "compare_peers.py"
    spec = importlib.util.spec_from_file_location("compare_peers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The columns of compare_peers timed here: PyTorch's eager op, normlab through PyTorch, the peers
# a user calls from eager PyTorch (torch.compile's CPU cost is not a call's).
COLUMNS = ("torch eager", "normlab (torch op)", "Liger", "QuACK")
# normlab's column is timed on each path of normlab_torch's eager calls: the extension, ctypes.
NORMLAB_PATHS = {"normlab _C": "extension", "normlab ctypes": "ctypes"}
SHOWN = (COLUMNS[0], *NORMLAB_PATHS, *COLUMNS[2:])
OPS = ("rmsnorm", "layernorm", "add_rmsnorm", "rmsnorm_backward", "layernorm_backward")


@contextlib.contextmanager
def eager_path(ops, path):
    """normlab_torch's eager calls on @p path ("extension" or "ctypes") while inside; a graph
    for a backward row is built inside too, so its nodes are that path's."""
    kept = ops._extension
    ops._extension = kept if path == "extension" else None
    try:
        yield
    finally:
        ops._extension = kept


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

    peers_tool = load_compare_peers()
    peers = peers_tool.make_peers()
    functions = peers_tool.torch_functions(torch)
    columns = {column.name: column for column in peers_tool.COLUMNS}
    print(f"{torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}, {nt.library_path()}")
    in_use = {"extension": "normlab _C", "ctypes": "normlab ctypes"}[nt.backend()]
    print(f"normlab_torch's eager calls take: {nt.backend()}"
          + (f" ({nt.extension_error()})" if nt.extension_error() else ""))
    print(f"{args.rows} x {args.cols} {args.dtype}: CPU time per call in us, median of "
          f"{args.batches} batches of {args.calls} calls back to back")
    for name in COLUMNS[2:]:
        version = peers[name].version()
        print(f"  {name}: {version or 'not installed'}")
    print(f"{'op':<20}" + "".join(f"{name:>16}" for name in SHOWN) + f"{'normlab / eager':>17}")
    measured = {}
    for op in OPS:
        problem = peers_tool.Problem(op, args.rows, args.cols, args.dtype, "overhead")
        inputs = peers_tool.make_inputs(torch, problem)
        timed, why_not = {}, {}
        for name in SHOWN:
            column = columns[name if name in COLUMNS else "normlab (torch op)"]
            path = NORMLAB_PATHS.get(name, nt.backend())
            if path == "extension" and ops._extension is None:
                why_not[name] = "not loaded"
                continue
            context = functools.partial(eager_path, ops, path)
            with context():  # a backward row's graph is built on the path timed
                launch = peers_tool.column_launch(torch, column, problem, inputs, functions, peers)
            if isinstance(launch, str):
                why_not[name] = launch
            else:
                timed[name] = (launch, context)
        for name, us in interleaved_medians(torch, timed, args.calls, args.batches).items():
            measured[op, name] = us
        cells = [why_not[name][:15] if name in why_not else f"{measured[op, name]:.2f}"
                 for name in SHOWN]
        ratio = (measured.get((op, in_use)) or 0) / (measured.get((op, "torch eager")) or 1)
        print(f"{op:<20}" + "".join(f"{cell:>16}" for cell in cells) + f"{ratio:>17.2f}")
    problem = peers_tool.Problem("rmsnorm", args.rows, args.cols, args.dtype, "overhead")
    inputs = peers_tool.make_inputs(torch, problem)
    x, w = inputs["x"], inputs["w"]
    rms_norm_alone = median_us_per_call(
        torch, lambda: F.rms_norm(x, (args.cols,), w, peers_tool.EPS), args.calls, args.batches)
    for name in NORMLAB_PATHS:
        fused = measured.get(("add_rmsnorm", name)) or float("nan")
        print(f"fused_add_rms_norm_ ({name}) against F.rms_norm alone ({rms_norm_alone:.2f} us): "
              f"{fused / rms_norm_alone:.2f}x")

    # The C ABI call as normlab_torch fills it, built once; and the kernel's GPU time.
    y, rstd = torch.empty_like(x), torch.empty(args.rows, device="cuda")
    call = capi.NormlabCall(
        op=capi.OP_RMSNORM, dtype=ops._DTYPES[x.dtype], weight_dtype=ops._DTYPES[w.dtype],
        rows=args.rows, cols=args.cols, eps=peers_tool.EPS, x=x.data_ptr(), x_stride=args.cols,
        y=y.data_ptr(), y_stride=args.cols, weight=w.data_ptr(), rstd=rstd.data_ptr())
    library = ops._library
    kernel_name, _ = library.plan(call)
    stream = torch.cuda.current_stream().cuda_stream
    run, error = library.dll.normlab_run, ctypes.create_string_buffer(capi.ERROR_CAPACITY)
    call_pointer = ctypes.byref(call)

    def c_abi():
        if run(call_pointer, stream, error, len(error)) != capi.OK:
            raise RuntimeError(error.value.decode())

    c_abi()
    assert torch.equal(y, nt.rms_norm(x, w, peers_tool.EPS)), "the C ABI call and the op disagree"
    print(f"rms_norm through the C ABI alone: "
          f"{median_us_per_call(torch, c_abi, args.calls, args.batches):.2f} us per call; "
          f"kernel {kernel_name}: {kernel_us(torch, c_abi, 101):.2f} us of GPU time")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
