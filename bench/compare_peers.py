#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""normlab next to the norms a user would otherwise pick: one GPU, one process, one table.

    python3 bench/compare_peers.py [--build DIR] [--normlab PATH] [--out DIR] [--only TEXT]
                                   [--repetitions N] [--warmup N] [--no-compile] [--check-all]
                                   [--require-torch] [--dry-run] [--self-test]

For every row of SHAPES it times, on the same GPU and in the same process:
  - PyTorch eager (F.rms_norm, F.layer_norm, x + r then F.rms_norm; backward through autograd),
    the hand-written eager RMSNorm computed in fp32, and torch.compile of the same functions;
  - the peers, where each imports: Liger (liger_kernel.ops: RMSNorm, LayerNorm, fused add +
    RMSNorm, forward and backward through autograd), QuACK (quack.rmsnorm: rmsnorm_fwd with and
    without residual, layernorm_fwd, rmsnorm_bwd, layernorm_bwd) and FlashInfer (flashinfer.norm:
    rmsnorm, fused_add_rmsnorm, layernorm);
  - normlab through its PyTorch ops, "normlab (torch op)" (python/normlab_torch: rms_norm,
    layer_norm, fused_add_rms_norm_, backward through autograd), with BUILD's
    libnormlab_capi.so unless NORMLAB_CAPI names another; it is not counted as a peer;
  - every registered normlab kernel of the row's op, through `normlab tour --json` (new registry
    entries, backward ones included, join without editing this script); the normlab column is
    the kernel normlab's dispatcher picks for the row (`normlab explain`), what a user of
    `normlab::run` gets, and the row also records the fastest registered kernel;
  - the copy roof, as torch's copy_ of a 512 MiB buffer (bytes read + written);
  - per row, a copy of the row's bytes (torch's copy_ of half the bytes model into the other
    half), timed as every column: what PyTorch's copy of those bytes alone reaches at that
    size, under the same flush; a reference, not a ceiling (PyTorch's copy is not the fastest
    way to move bytes: on rows of a few megabytes norm kernels pass it by many points).
A peer that is not installed, fails to import, refuses the shape or raises is a cell that says
why (its error's first line), never a crash.

Timing follows normlab's harness, the same for every column: CUDA events around each
repetition, warm-up first, the L2 flushed before every repetition by writing a buffer twice its
size, the median reported. The table compares the GPU time of the kernels: launch and Python
overhead are left out for every implementation. normlab launches from C++ behind the L2-flush
memset, which already gives the CPU a head start; a Python call (eager dispatch, torch.compile's
guards, a peer's wrapper) can take tens of microseconds of CPU time, during which the GPU would
sit idle inside the timed region. So each Python repetition also queues a GPU busy-wait
(torch.cuda._sleep) between the flush and the start event, at least 250 us and at least twice
the CPU time the call took in its warm-up, and the CPU has queued the whole call before the GPU
reaches it. Bandwidth uses normlab's bytes model for every
implementation (activations read once and written once, plus the parameters), so the columns
compare times. Rows of a few rows report microseconds instead: there the launch, not the bytes,
sets the time, and the run also times an empty kernel (torch.cuda._sleep(0)) the same way, the
floor under those rows.

Before an implementation is timed, its outputs on the row's inputs are compared with a float64
reference computed by PyTorch from the same inputs: every element must satisfy
|got - want| <= abs + rel * |want| with the dtype's tolerance from common/src/compare.cpp;
parameter gradients, sums over the rows, get abs * sqrt(rows). A wrong output is a cell saying
so, and is not timed. The dispatcher's kernel (every normlab kernel with --check-all) is
checked the same way on the inputs that `normlab check --kernel NAME --dump DIR` writes. The figure kept is the
worst ratio of error to allowance: at most 1 where it passes.

Writes peer_comparison.json into --out (book/results), with the GPU, driver, the version of
PyTorch and of every peer, and the date; book/plot_peers.py turns it into the Markdown table and
the charts. Without PyTorch or a CUDA GPU it says so and exits 0 (1 with --require-torch).
--dry-run prints the plan and needs neither; --self-test checks the reason cells of missing and
broken peers and needs neither.
"""
import argparse
import datetime
import importlib
import importlib.metadata
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COPY_ROOF_BYTES = 512 << 20
# The GPU busy-wait queued before each timed Python repetition, at least about 250 us at a
# ~2 GHz SM clock (longer at lower clocks, which only adds head start), and at least twice the
# CPU time of the call (head_start_cycles). It runs before the start event. A backward pass
# through autograd and a compiled graph can take more than 100 us of CPU time.
HEAD_START_CYCLES = 500_000
SM_CYCLES_PER_SECOND = 2e9
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
EPS = 1e-5
RESULT_FILE = "peer_comparison.json"
NORMLAB_TORCH = "normlab (torch op)"  # normlab's own column through PyTorch, not a peer


@dataclass(frozen=True)
class Problem:
    op: str
    rows: int
    cols: int
    dtype: str
    group: str
    note: str = ""

    def describe(self):
        return f"{self.op:<18} {self.dtype:<5} {self.rows} x {self.cols}"

    def is_backward(self):
        return self.op.endswith("_backward")

    def is_layernorm(self):
        return "layernorm" in self.op

    def bytes_moved(self):
        """normlab's bytes model (common/src/ops.cpp): activations and parameters once each."""
        activation = self.rows * self.cols * DTYPE_BYTES[self.dtype]
        parameters = self.cols * DTYPE_BYTES[self.dtype] * (2 if self.is_layernorm() else 1)
        if self.is_backward():  # read x, dy; write dx; parameters and their grads; statistics
            statistics_ = self.rows * 4 * (2 if self.is_layernorm() else 1)
            return 3 * activation + 2 * parameters + statistics_
        return (4 if self.op.startswith("add_") else 2) * activation + parameters


# Row groups, in the order of the table and of the charts; the few-row group reports time.
GROUPS = {
    "bf16, many rows": "percent",
    "bf16, odd widths": "percent",
    "few rows": "microseconds",
    "backward": "percent",
    "fp16": "percent",
    "fp32": "percent",
}
SHAPES = [
    *[Problem(op, m, n, "bf16", "bf16, many rows") for m, n in ((16384, 4096), (4096, 8192))
      for op in ("rmsnorm", "layernorm", "add_rmsnorm")],
    *[Problem(op, 4096, 5000, "bf16", "bf16, many rows") for op in ("rmsnorm", "add_rmsnorm")],
    # 16384: the hidden size of Llama 3.1 405B, where chapter 09 holds two rows an SM.
    *[Problem(op, 4096, 16384, "bf16", "bf16, many rows") for op in ("rmsnorm", "layernorm")],
    *[Problem(op, m, n, "bf16", "bf16, odd widths") for m, n in ((8192, 576), (512, 65536))
      for op in ("rmsnorm", "layernorm", "add_rmsnorm")],
    *[Problem(op, m, 4096, "bf16", "few rows") for m in (32, 1)
      for op in ("rmsnorm", "layernorm", "add_rmsnorm")],
    *[Problem(op, m, n, dtype, "backward") for m, n, dtype in ((16384, 4096, "bf16"),
                                                                (8192, 576, "bf16"),
                                                                (2048, 8192, "fp32"))
      for op in ("rmsnorm_backward", "layernorm_backward")],
    # fp16: issue 14 asks the dispatcher to match the best peer in fp16 too.
    *[Problem(op, m, n, "fp16", "fp16") for m, n in ((16384, 4096), (8192, 576))
      for op in ("rmsnorm", "layernorm", "add_rmsnorm")],
    *[Problem(op, 2048, 8192, "fp32", "fp32") for op in ("rmsnorm", "layernorm", "add_rmsnorm")],
    *[Problem(op, 1024, 1024, "fp32", "fp32") for op in ("rmsnorm", "layernorm")],
    # Last: the shapes most likely to make a peer refuse or fail, rows wider than a block holds.
    Problem("layernorm", 16, 4194304, "fp32", "fp32", "the last three dims of (16, 64, 256, 256)"),
    Problem("layernorm", 2, 9437184, "fp32", "fp32",
            "PyTorch's own numeric test (test_LayerNorm_numeric): the last three dims of "
            "(2, 256, 256, 144)"),
]


# ---------------------------------------------------------------- the peers


class Peer:
    """A library whose norms are compared: imported on first use, with its version, or the
    reason it cannot be used (the text of every cell of its column)."""

    def __init__(self, name, distribution, modules):
        self.name = name
        self.distribution = distribution
        self.modules = modules  # imported by importlib: quack.rmsnorm is shadowed by a function
        self.loaded = None
        self.reason = None

    def version(self):
        if self.distribution is None:  # a package of this repository
            return "this repository"
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return None

    def load(self):
        """{module name: module}, or None with self.reason set."""
        if self.loaded is None and self.reason is None:
            try:
                self.loaded = {m: importlib.import_module(m) for m in self.modules}
            except Exception as error:  # a broken install is a cell, not a crash
                top = self.modules[0].split(".")[0]
                missing = isinstance(error, ModuleNotFoundError) and error.name == top
                self.reason = "not installed" if missing else f"import failed: {first_line(error)}"
        return self.loaded


def first_line(error):
    lines = re.sub(r"\x1b\[[0-9;]*m", "", str(error)).strip().splitlines()
    return f"{type(error).__name__}: {lines[0][:160]}" if lines else type(error).__name__


def make_peers():
    return {
        "Liger": Peer("Liger", "liger-kernel", ["liger_kernel.ops"]),
        "QuACK": Peer("QuACK", "quack-kernels", ["quack.rmsnorm"]),
        "FlashInfer": Peer("FlashInfer", "flashinfer-python", ["flashinfer.norm"]),
        NORMLAB_TORCH: Peer(NORMLAB_TORCH, None, ["normlab_torch"]),
    }


# Versions recorded with the results, besides the peers' own.
RUNTIME_DISTRIBUTIONS = ["torch", "triton", "nvidia-cutlass-dsl", "apache-tvm-ffi"]


# ---------------------------------------------------------------- options and plan


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(REPO / "build" / "default"),
                        help="normlab build directory (default: build/default)")
    parser.add_argument("--normlab", help="the normlab program (default: BUILD/tools/normlab)")
    parser.add_argument("--out", default=str(REPO / "book" / "results"),
                        help=f"where {RESULT_FILE} goes (default: book/results)")
    parser.add_argument("--only", default="",
                        help="run only rows whose description ('rmsnorm bf16 32 x 4096') "
                             "contains this text")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--check-all", action="store_true",
                        help="check every normlab kernel against float64, not only the fastest")
    parser.add_argument("--require-torch", action="store_true",
                        help="fail (exit 1) instead of exiting 0 where PyTorch or a GPU is missing")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    parser.add_argument("--self-test", action="store_true",
                        help="check the cells of missing and broken peers, without torch or GPU")
    args = parser.parse_args(argv)
    args.normlab = Path(args.normlab or Path(args.build) / "tools" / "normlab")
    args.problems = [p for p in SHAPES if args.only in " ".join(p.describe().split())]
    if not args.problems:
        parser.error(f"--only '{args.only}' leaves no shape")
    return args


def tolerances():
    """The per-dtype (abs, rel) tolerances, read from where they are written once."""
    source = (REPO / "common" / "src" / "compare.cpp").read_text()
    found = re.findall(r"case DType::(\w+):\s*return \{([0-9.eE+-]+),\s*([0-9.eE+-]+)\};", source)
    names = {"f32": "fp32", "f16": "fp16", "bf16": "bf16"}
    table = {names[d]: (float(a), float(r)) for d, a, r in found if d in names}
    if set(table) != set(names.values()):
        sys.exit("compare_peers: cannot read the tolerances from common/src/compare.cpp")
    return table


def registered_kernels(normlab):
    """{name: (op, dtypes)} from `normlab list` (which needs no GPU)."""
    listing = subprocess.run([str(normlab), "list"], capture_output=True, text=True, check=True)
    kernels = {}
    for line in listing.stdout.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 4:
            kernels[fields[1]] = (fields[2], fields[3].split(","))
    return kernels


def print_plan(args, tolerance):
    print("tolerances (common/src/compare.cpp): "
          + ", ".join(f"{d} abs {a:g} + rel {r:g}" for d, (a, r) in tolerance.items())
          + "; parameter gradients abs * sqrt(rows)")
    for peer in make_peers().values():
        version = peer.version()
        described = f"{peer.distribution} {version}" if peer.distribution else version
        print(f"peer {peer.name}: " + (described if version else "not installed"))
    kernels = registered_kernels(args.normlab) if args.normlab.exists() else None
    if kernels is None:
        print(f"normlab not built at {args.normlab}: its kernels are listed once it is")
    print(f"copy roof: torch copy_ of {COPY_ROOF_BYTES >> 20} MiB, and per row a copy of the "
          f"row's bytes; timing: {args.warmup} warm-up, "
          f"median of {args.repetitions}, L2 flushed and a GPU sleep of at least "
          f"{HEAD_START_CYCLES} cycles (and twice the call's CPU time) queued before each "
          "Python repetition (GPU time only)")
    for problem in args.problems:
        columns = [c.name for c in COLUMNS if c.offers(problem.op)
                   and not (c.compiled and args.no_compile)]
        ours = [name for name, (op, dtypes) in (kernels or {}).items()
                if op == problem.op and problem.dtype in dtypes]
        listed = ", ".join(ours) or ("no kernel" if kernels else "?")
        chosen = dispatched_kernel(args.normlab, problem) if kernels is not None else "?"
        print(f"  [{problem.group}] {problem.describe():<38} {'; '.join(columns)} "
              f"| normlab: {listed} (the dispatcher's: {chosen or 'refused'})")
    for m, n, dtype in tour_problems(args.problems):
        print("  " + shlex.join(tour_command(args.normlab, m, n, dtype, Path("DIR"))))
    print("  then per row: " + shlex.join(check_command(args.normlab, args.problems[0],
                                                       "KERNEL", Path("DIR"))))


def tour_problems(problems):
    seen = []
    for p in problems:
        if (p.rows, p.cols, p.dtype) not in seen:
            seen.append((p.rows, p.cols, p.dtype))
    return seen


def tour_command(normlab, rows, cols, dtype, out_dir):
    return [str(normlab), "tour", "--rows", str(rows), "--cols", str(cols), "--dtype", dtype,
            "--json", str(out_dir / f"tour-{rows}x{cols}-{dtype}.json")]


def explain_command(normlab, problem):
    command = [str(normlab), "explain", "--op", problem.op, "--dtype", problem.dtype,
               "--rows", str(problem.rows), "--cols", str(problem.cols)]
    return command + (["--bias"] if problem.is_layernorm() else [])


def explained_kernel(text):
    """The kernel `normlab explain` prints on its "kernel:" line, or None."""
    match = re.search(r"^kernel:\s+(\S+)", text, re.MULTILINE)
    return match.group(1) if match else None


def dispatched_kernel(normlab, problem):
    """The kernel normlab's dispatcher runs for @p problem, or None when it refuses the call."""
    finished = subprocess.run(explain_command(normlab, problem), capture_output=True, text=True)
    return explained_kernel(finished.stdout) if finished.returncode == 0 else None


def check_command(normlab, problem, kernel, dump_dir):
    command = [str(normlab), "check", "--op", problem.op, "--dtype", problem.dtype,
               "--rows", str(problem.rows), "--cols", str(problem.cols), "--kernel", kernel,
               "--dump", str(dump_dir)]
    return command + (["--bias"] if problem.is_layernorm() else [])


def run_tours(args, problems, scratch):
    """{(rows, cols, dtype): tour JSON} for every shape; kernels that failed their own
    verification stay in, marked."""
    tours = {}
    for rows, cols, dtype in tour_problems(problems):
        command = tour_command(args.normlab, rows, cols, dtype, scratch)
        print("running " + shlex.join(command), flush=True)
        finished = subprocess.run(command, capture_output=True, text=True)
        if finished.returncode == 2 and "no registered kernel" in finished.stderr:
            tours[(rows, cols, dtype)] = {"kernels": []}
            continue
        if finished.returncode not in (0, 1):  # 1: a kernel failed verification; JSON written
            sys.exit(f"compare_peers: normlab tour exited {finished.returncode}:\n{finished.stderr}")
        if not Path(command[-1]).exists():
            # Exit 1 without the JSON: the tour stopped before its table (a kernel refused the
            # shape only when launched). The shape's normlab cells say so; the other rows go on.
            said = finished.stderr.strip().splitlines()
            reason = "normlab tour stopped" + (f": {said[-1]}" if said else "")
            print("  " + reason, flush=True)
            tours[(rows, cols, dtype)] = {"kernels": [], "error": reason}
            continue
        tours[(rows, cols, dtype)] = json.loads(Path(command[-1]).read_text())
    return tours


# ---------------------------------------------------------------- inputs, reference, checks


def torch_dtype(torch, name):
    aliases = {"f32": "fp32", "float": "fp32", "float32": "fp32", "f16": "fp16", "half": "fp16",
               "float16": "fp16", "bfloat16": "bf16"}
    name = aliases.get(name, name)
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[name]


def make_inputs(torch, problem):
    """Seeded inputs like normlab's: normal activations, weights near 1, a normal bias; for a
    backward row also the incoming gradient dy."""
    generator = torch.Generator(device="cuda").manual_seed(1)
    dtype = torch_dtype(torch, problem.dtype)
    shape = (problem.rows, problem.cols)
    normal = lambda size, scale=1.0: (scale * torch.randn(
        size, generator=generator, device="cuda")).to(dtype)
    inputs = {"x": normal(shape), "r": normal(shape)}
    inputs["w"] = (1 + 0.6 * (torch.rand(problem.cols, generator=generator, device="cuda")
                              - 0.5)).to(dtype)
    inputs["b"] = normal(problem.cols, 0.5)
    if problem.is_backward():
        inputs["dy"] = normal(shape)
    return inputs


def forward_op(op):
    return op.removesuffix("_backward")


def reference(torch, problem, t, eps=EPS):
    """The float64 outputs of @p problem's op on inputs @p t (x, r, w, b, dy)."""
    F = torch.nn.functional
    cols = (problem.cols,)
    x, w, b = t["x"].double(), t["w"].double(), t["b"].double()
    if problem.op == "rmsnorm":
        return {"y": F.rms_norm(x, cols, w, eps)}
    if problem.op == "layernorm":
        return {"y": F.layer_norm(x, cols, w, b, eps)}
    if problem.op == "add_rmsnorm":
        h = x + t["r"].double()
        return {"y": F.rms_norm(h, cols, w, eps), "residual_out": h}
    with torch.enable_grad():
        leaves = [x.requires_grad_(), w.requires_grad_()]
        if problem.is_layernorm():
            leaves.append(b.requires_grad_())
            y = F.layer_norm(x, cols, w, b, eps)
        else:
            y = F.rms_norm(x, cols, w, eps)
        grads = torch.autograd.grad(y, leaves, t["dy"].double())
    return dict(zip(("dx", "dw", "db"), grads))


def compare(got, want, tolerance):
    """Mismatches by |got - want| <= abs + rel * |want|, and the worst error as a fraction of
    that allowance (at most 1 where every element passes)."""
    got, want = got.double(), want.double()
    error = (got - want).abs()
    allowed = tolerance[0] + tolerance[1] * want.abs()
    bad = int((~(error <= allowed)).sum())  # NaN counts as bad
    return {"mismatches": bad, "checked": got.numel(), "max_abs_error": float(error.max()),
            "worst_error_to_tolerance": float((error / allowed).max())}


def check_outputs(problem, got, want, tolerance):
    """{"passed", "verdict", "outputs", "tolerance"} for outputs @p got against @p want."""
    abs_, rel = tolerance[problem.dtype]
    reports = {}
    for name, wanted in want.items():
        if name not in got or got[name] is None:
            return {"passed": False, "verdict": f"wrong: returned no {name}"}
        allowance = (abs_ * math.sqrt(problem.rows) if name in ("dw", "db") else abs_, rel)
        reports[name] = compare(got[name].reshape(wanted.shape), wanted, allowance)
    worst = max(r["worst_error_to_tolerance"] for r in reports.values())
    bad = {name: r for name, r in reports.items() if r["mismatches"]}
    if bad:
        verdict = "wrong: " + ", ".join(
            f"{r['mismatches']} of {r['checked']} {name}" for name, r in bad.items()
        ) + f" outside abs {abs_:g} + rel {rel:g} (worst {worst:.3g}x the allowance)"
    else:
        verdict = f"matches float64 (worst error {worst:.2g} of tolerance)"
    return {"passed": not bad, "verdict": verdict, "outputs": reports,
            "tolerance": {"abs": abs_, "rel": rel}}


# ---------------------------------------------------------------- the columns


def backward_through_autograd(torch, problem, t, forward):
    """A launch running one backward pass through the graph of `forward(x, w[, b])`, built once
    outside the timed region; it returns dx, dw (and db)."""
    leaves = [t["x"].detach().requires_grad_(), t["w"].detach().requires_grad_()]
    if problem.is_layernorm():
        leaves.append(t["b"].detach().requires_grad_())
    with torch.enable_grad():
        y = forward(*leaves)
    return lambda: dict(zip(("dx", "dw", "db"),
                            torch.autograd.grad(y, leaves, t["dy"], retain_graph=True)))


def torch_functions(torch):
    F = torch.nn.functional

    def rms_norm_by_hand(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(x.dtype)

    def add_rms_norm(x, r, w):
        h = x + r
        return F.rms_norm(h, (h.shape[-1],), w, EPS), h

    return {
        "rmsnorm": lambda x, w: F.rms_norm(x, (x.shape[-1],), w, EPS),
        "rmsnorm_by_hand": rms_norm_by_hand,
        "layernorm": lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, EPS),
        "add_rmsnorm": add_rms_norm,
    }


def torch_launch(torch, problem, t, function):
    """The launch of a PyTorch function of the row's forward op (backward through autograd)."""
    if problem.is_backward():
        return backward_through_autograd(torch, problem, t, function)
    if problem.op == "rmsnorm":
        return lambda: {"y": function(t["x"], t["w"])}
    if problem.op == "layernorm":
        return lambda: {"y": function(t["x"], t["w"], t["b"])}
    return lambda: dict(zip(("y", "residual_out"), function(t["x"], t["r"], t["w"])))


def liger_launch(torch, problem, t, modules):
    ops = modules["liger_kernel.ops"]
    if problem.op == "rmsnorm":
        return lambda: {"y": ops.LigerRMSNormFunction.apply(t["x"], t["w"], EPS)}
    if problem.op == "layernorm":
        return lambda: {"y": ops.LigerLayerNormFunction.apply(t["x"], t["w"], t["b"], EPS)}
    if problem.op == "add_rmsnorm":
        return lambda: dict(zip(("y", "residual_out"), ops.LigerFusedAddRMSNormFunction.apply(
            t["x"], t["r"], t["w"], EPS)))
    if problem.op == "rmsnorm_backward":
        # in_place=False: dx in a new buffer, so that dy stays the same for every repetition
        return backward_through_autograd(torch, problem, t, lambda x, w: (
            ops.LigerRMSNormFunction.apply(x, w, EPS, 0.0, "llama", False)))
    return backward_through_autograd(torch, problem, t, lambda x, w, b: (
        ops.LigerLayerNormFunction.apply(x, w, b, EPS)))


def quack_launch(torch, problem, t, modules):
    quack = modules["quack.rmsnorm"]
    x, w, dy = t["x"], t["w"], t.get("dy")
    # QuACK's LayerNorm takes its weight and bias in fp32 only (layernorm_fwd asserts it).
    w32, b32 = t["w"].float(), t["b"].float()
    if problem.op == "rmsnorm":
        return lambda: {"y": quack.rmsnorm_fwd(x, w, eps=EPS)[0]}
    if problem.op == "add_rmsnorm":
        return lambda: dict(zip(("y", "residual_out"),
                                quack.rmsnorm_fwd(x, w, residual=t["r"], eps=EPS)[:2]))
    if problem.op == "layernorm":
        return lambda: {"y": quack.layernorm_fwd(x, w32, b32, eps=EPS)}
    if problem.op == "rmsnorm_backward":
        rstd = quack.rmsnorm_fwd(x, w, eps=EPS, store_rstd=True)[2]
        return lambda: dict(zip(("dx", "dw"), quack.rmsnorm_bwd(x, w, dy, rstd)[:2]))
    _, rstd, mean = quack.layernorm_fwd(x, w32, b32, eps=EPS, return_rstd=True, return_mean=True)
    return lambda: dict(zip(("dx", "dw", "db"),
                            quack.layernorm_bwd(x, w32, dy, rstd, mean, has_bias=True)))


def flashinfer_launch(torch, problem, t, modules):
    norm = modules["flashinfer.norm"]
    if problem.op == "rmsnorm":
        return lambda: {"y": norm.rmsnorm(t["x"], t["w"], EPS)}
    if problem.op == "layernorm":  # bf16 activations, fp32 weight and bias (its docstring)
        w32, b32 = t["w"].float(), t["b"].float()
        return lambda: {"y": norm.layernorm(t["x"], w32, b32, EPS)}
    return in_place_add_rms_norm(t, norm.fused_add_rmsnorm)


def in_place_add_rms_norm(t, fused):
    """The launch of fused(x, r, w, EPS), in place: residual += x, then x = rmsnorm(residual).
    The first call (the check) sees the row's inputs; later calls keep transforming the copies,
    which changes no timing."""
    x, r = t["x"].clone(), t["r"].clone()

    def launch():
        fused(x, r, t["w"], EPS)
        return {"y": x, "residual_out": r}
    return launch


def normlab_torch_launch(torch, problem, t, modules):
    ops = modules["normlab_torch"]
    if problem.op == "rmsnorm":
        return lambda: {"y": ops.rms_norm(t["x"], t["w"], EPS)}
    if problem.op == "layernorm":
        return lambda: {"y": ops.layer_norm(t["x"], t["w"], t["b"], EPS)}
    if problem.op == "add_rmsnorm":
        return in_place_add_rms_norm(t, ops.fused_add_rms_norm_)
    if problem.op == "rmsnorm_backward":
        return backward_through_autograd(torch, problem, t, lambda x, w: ops.rms_norm(x, w, EPS))
    return backward_through_autograd(torch, problem, t,
                                     lambda x, w, b: ops.layer_norm(x, w, b, EPS))


@dataclass(frozen=True)
class Column:
    name: str
    ops: tuple
    peer: str = ""           # "" for PyTorch's own columns
    function: str = ""       # PyTorch columns: the key in torch_functions (per forward op)
    compiled: bool = False
    launcher: object = None  # peers: (torch, problem, inputs, modules) -> launch

    def offers(self, op):
        return op in self.ops


ALL_OPS = ("rmsnorm", "layernorm", "add_rmsnorm", "rmsnorm_backward", "layernorm_backward")
COLUMNS = [
    Column("torch eager", ALL_OPS),
    Column("torch eager, hand-written fp32", ("rmsnorm",), function="rmsnorm_by_hand"),
    Column("torch.compile", ALL_OPS, compiled=True),
    Column("torch.compile, hand-written fp32", ("rmsnorm",), function="rmsnorm_by_hand",
           compiled=True),
    Column("Liger", ALL_OPS, peer="Liger", launcher=liger_launch),
    Column("QuACK", ALL_OPS, peer="QuACK", launcher=quack_launch),
    Column("FlashInfer", ("rmsnorm", "layernorm", "add_rmsnorm"), peer="FlashInfer",
           launcher=flashinfer_launch),
    Column(NORMLAB_TORCH, ALL_OPS, peer=NORMLAB_TORCH, launcher=normlab_torch_launch),
]


class Bench:
    """Times a no-argument launch the same way for every column."""

    def __init__(self, torch, args):
        self.torch = torch
        self.args = args
        properties = torch.cuda.get_device_properties(0)
        l2_bytes = getattr(properties, "L2_cache_size", 0) or (64 << 20)
        self.flush_buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device="cuda")

    def median_ms(self, launch, flush=True, warmup=None, repetitions=None):
        torch = self.torch
        cpu_seconds = 0.0  # the longest the CPU took to queue one call, in the warm-up
        for _ in range(self.args.warmup if warmup is None else warmup):
            started = time.perf_counter()
            launch()
            cpu_seconds = max(cpu_seconds, time.perf_counter() - started)
        torch.cuda.synchronize()
        head_start = max(HEAD_START_CYCLES, int(2 * cpu_seconds * SM_CYCLES_PER_SECOND))
        count = self.args.repetitions if repetitions is None else repetitions
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(count)]
        for start, stop in events:
            if flush:
                self.flush_buffer.zero_()
            # Keep the GPU busy, outside the timed region, while the CPU queues launch() whole:
            # the events then time the kernels, not Python and dispatch overhead.
            torch.cuda._sleep(head_start)
            start.record()
            launch()
            stop.record()
        torch.cuda.synchronize()
        return statistics.median(start.elapsed_time(stop) for start, stop in events)

    def copy_roof_gbps(self):
        torch = self.torch
        source = torch.ones(COPY_ROOF_BYTES, dtype=torch.uint8, device="cuda")
        destination = torch.empty_like(source)
        ms = self.median_ms(lambda: destination.copy_(source), flush=False, warmup=3,
                            repetitions=20)
        return 2 * COPY_ROOF_BYTES / (ms * 1e6)


def bandwidth(problem, ms, roof):
    gbps = problem.bytes_moved() / (ms * 1e6)
    return {"median_ms": ms, "gbps": gbps, "percent_of_copy_roof": 100 * gbps / roof}


def copy_of_row_bytes(torch, bench, problem, roof):
    """A copy that reads half the row's bytes model and writes the other half, timed as every
    column is: the share of the roof PyTorch's copy of the bytes reaches at this size (norm
    kernels can pass it, most on rows of a few megabytes). The 512 MiB roof is
    not reached by small problems: their start, last wave and the write-back of the dirty lines
    the flush leaves weigh more (book/results/runs/2026-11-27-h100-streaming-ceiling)."""
    half = problem.bytes_moved() // 2
    source = torch.ones(half, dtype=torch.uint8, device="cuda")
    destination = torch.empty_like(source)
    copy = bandwidth(problem, bench.median_ms(lambda: destination.copy_(source)), roof)
    del source, destination
    print(f"  {'copy of the same bytes':<34} {copy['median_ms'] * 1e3:9.1f} us "
          f"{copy['percent_of_copy_roof']:5.1f}%", flush=True)
    return copy


def column_launch(torch, column, problem, inputs, functions, peers):
    """The launch of @p column on this row, or a string saying why there is none."""
    if column.peer:
        modules = peers[column.peer].load()
        if modules is None:
            return peers[column.peer].reason
        return column.launcher(torch, problem, inputs, modules)
    function = functions[column.function or forward_op(problem.op)]
    if column.compiled:
        function = torch.compile(function, dynamic=False)
    return torch_launch(torch, problem, inputs, function)


def time_columns(torch, bench, problem, peers, tolerance, roof):
    """One entry per column offering the row's op: its check and time, or why there is none."""
    inputs = make_inputs(torch, problem)
    want = reference(torch, problem, inputs)
    functions = torch_functions(torch)
    torch._dynamo.reset()  # every row compiles afresh, for this static shape only
    results = []
    for column in COLUMNS:
        if column.compiled and bench.args.no_compile:
            continue
        entry = {"name": column.name, "peer": column.peer or "PyTorch"}
        results.append(entry)
        if not column.offers(problem.op):
            entry["note"] = f"offers no {problem.op}"
            continue
        try:
            launch = column_launch(torch, column, problem, inputs, functions, peers)
            if isinstance(launch, str):
                entry["note"] = launch
            else:
                entry["check"] = check_outputs(problem, launch(), want, tolerance)
                if entry["check"]["passed"]:
                    entry.update(bandwidth(problem, bench.median_ms(launch), roof))
                else:
                    entry["note"] = entry["check"]["verdict"]
        except Exception as error:  # a refusal or a failed compile is a cell, not a crash
            entry["note"] = f"failed: {first_line(error)}"
        print(f"  {column.name:<34} " + (f"{entry['median_ms'] * 1e3:9.1f} us "
                                         f"{entry['percent_of_copy_roof']:5.1f}%"
                                         if "median_ms" in entry else entry["note"]), flush=True)
    del inputs, want
    torch.cuda.empty_cache()
    return results


# ---------------------------------------------------------------- the normlab side


def normlab_results(problem, tours, roof):
    """Every normlab kernel of this op on this shape, fastest first (failed ones last)."""
    tour = tours.get((problem.rows, problem.cols, problem.dtype))
    kernels = [k for k in (tour or {}).get("kernels", []) if k["op"] == problem.op]
    results = []
    for k in kernels:
        entry = {"kernel": k["name"], "passed": k["passed"]}
        if k["passed"]:
            entry.update(bandwidth(problem, k["median_ms"], roof))
        results.append(entry)
    return sorted(results, key=lambda e: e.get("median_ms", float("inf")))


DUMP_NAMES = {"x": "x", "residual": "r", "weight": "w", "bias": "b", "dy": "dy"}
# normlab's names of the parameter gradients it dumps, and the reference's.
GRADIENT_NAMES = {"dweight": "dw", "dbias": "db"}
VECTORS = ("weight", "bias", "dweight", "dbias")


def load_dump(torch, directory):
    """case.json and every raw tensor it lists (rows x stride elements each), on the GPU,
    keyed by name without ".bin"; a one-row parameter becomes a vector."""
    case = json.loads((directory / "case.json").read_text())
    tensors = {}
    for file_name, spec in case["files"].items():
        name = file_name.removesuffix(".bin")
        raw = bytearray((directory / f"{name}.bin").read_bytes())
        flat = torch.frombuffer(raw, dtype=torch_dtype(torch, spec["dtype"]))
        stride = spec.get("stride", spec["cols"])
        matrix = flat.view(spec["rows"], stride)[:, :spec["cols"]]
        tensors[name] = (matrix.reshape(-1) if name in VECTORS else matrix).to("cuda")
    return case, tensors


def check_normlab(torch, args, problem, kernel, tolerance):
    """Runs `normlab check --dump` for @p kernel and compares every output it wrote with the
    float64 reference on the dumped inputs. "passed" is None where normlab cannot dump the case
    (the kernel then stands on the tour's own float64 check)."""
    with tempfile.TemporaryDirectory() as dump_dir:
        command = check_command(args.normlab, problem, kernel, Path(dump_dir))
        finished = subprocess.run(command, capture_output=True, text=True)
        if not (Path(dump_dir) / "case.json").exists():
            said = (finished.stderr or finished.stdout).strip().splitlines()
            return {"kernel": kernel, "passed": None,
                    "verdict": f"not checked here: normlab check exited {finished.returncode}"
                               + (f" ({said[0]})" if said else "")}
        case, dumped = load_dump(torch, Path(dump_dir))
        inputs = {DUMP_NAMES[name]: tensor for name, tensor in dumped.items() if name in DUMP_NAMES}
        inputs.setdefault("b", torch.zeros_like(inputs["w"]))
        want = reference(torch, problem, inputs, float(case["eps"]))
        got = {GRADIENT_NAMES.get(name, name): tensor for name, tensor in dumped.items()
               if GRADIENT_NAMES.get(name, name) in want}
        result = check_outputs(problem, got, want, tolerance)
    if finished.returncode != 0 and result["passed"]:
        result = {**result, "passed": False, "verdict": "wrong: fails normlab's own float64 check"}
    return {"kernel": kernel, **result}


# ---------------------------------------------------------------- the run


def measure_row(torch, args, bench, problem, tours, peers, tolerance, roof):
    """Every column and normlab on one row, with the best peer and normlab's ratio to it."""
    print(f"timing [{problem.group}] {problem.describe()}", flush=True)
    implementations = time_columns(torch, bench, problem, peers, tolerance, roof)
    ours = normlab_results(problem, tours, roof)
    row = {"op": problem.op, "rows": problem.rows, "cols": problem.cols,
           "dtype": problem.dtype, "group": problem.group, "unit": GROUPS[problem.group],
           "note": problem.note, "bytes": problem.bytes_moved(),
           "copy_of_row_bytes": copy_of_row_bytes(torch, bench, problem, roof),
           "implementations": implementations, "normlab_kernels": ours}
    timed_peers = [i for i in implementations if i.get("median_ms") and i["peer"] != NORMLAB_TORCH]
    if timed_peers:
        best_peer = min(timed_peers, key=lambda i: i["median_ms"])
        row["best_peer"] = {key: best_peer[key]
                            for key in ("name", "median_ms", "percent_of_copy_roof")}
    fastest = next((k for k in ours if k["passed"]), None)
    chosen = dispatched_kernel(args.normlab, problem)
    row["dispatched_kernel"] = chosen
    best = next((k for k in ours if k["passed"] and k["kernel"] == chosen), None)
    if best is None:
        note = (f"the dispatcher's {chosen} failed or was not in the tour" if chosen else
                "the dispatcher refused the call")
        tour = tours.get((problem.rows, problem.cols, problem.dtype)) or {}
        implementations.append({"name": "normlab", "peer": "normlab",
                                "note": note if ours else tour.get("error", "no kernel")})
        return row
    if fastest is not None:
        row["normlab_fastest"] = {key: fastest[key]
                                  for key in ("kernel", "median_ms", "percent_of_copy_roof")}
    checked = [k["kernel"] for k in ours if k["passed"]] if args.check_all else [best["kernel"]]
    row["checks"] = [check_normlab(torch, args, problem, k, tolerance) for k in checked]
    implementations.append({"name": "normlab", "peer": "normlab", **best,
                            "check": row["checks"][0]})
    if timed_peers:
        row["normlab_vs_best_peer"] = best_peer["median_ms"] / best["median_ms"]
    torch.cuda.empty_cache()
    return row


def driver_version():
    try:
        query = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True, check=True)
        return query.stdout.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def versions(peers):
    """The version of every peer and of the runtime they share, "not installed" where absent."""
    found = {}
    for distribution in RUNTIME_DISTRIBUTIONS + [p.distribution for p in peers.values()
                                                  if p.distribution]:
        try:
            found[distribution] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            found[distribution] = "not installed"
    return found


def self_test():
    """The cells of a peer that is not installed and of one whose import fails; no torch, no
    GPU."""
    with tempfile.TemporaryDirectory() as scratch:
        broken = Path(scratch, "normlab_broken_peer")
        broken.mkdir()
        (broken / "__init__.py").write_text("raise ImportError('libpeer.so: cannot open\\nmore')\n")
        sys.path.insert(0, scratch)
        try:
            missing = Peer("Missing", "normlab-missing-peer", ["normlab_missing_peer.norm"])
            assert missing.load() is None and missing.reason == "not installed", missing.reason
            assert missing.version() is None
            failing = Peer("Broken", "normlab-broken-peer", ["normlab_broken_peer"])
            assert failing.load() is None, failing.loaded
            assert failing.reason == "import failed: ImportError: libpeer.so: cannot open", \
                failing.reason
            # A missing dependency of an installed peer is not "not installed".
            (broken / "__init__.py").write_text("import normlab_missing_dependency\n")
            sys.modules.pop("normlab_broken_peer", None)
            dependent = Peer("Dependent", "normlab-broken-peer", ["normlab_broken_peer"])
            assert dependent.load() is None
            assert dependent.reason == ("import failed: ModuleNotFoundError: No module named "
                                        "'normlab_missing_dependency'"), dependent.reason
        finally:
            sys.path.remove(scratch)
    assert Peer("Here", None, ["normlab_here"]).version() == "this repository"
    explained = "call:    rmsnorm bf16 8192 x 576\nkernel:  ch09_rmsnorm (chapter 09)\nwhy: ...\n"
    assert explained_kernel(explained) == "ch09_rmsnorm", explained_kernel(explained)
    assert explained_kernel("why: kernel: not at the start of a line\n") is None
    assert all(GROUPS.get(p.group) for p in SHAPES), "every row belongs to a known group"
    # A tour that exits 1 before writing its table marks its shape and lets the run go on.
    with tempfile.TemporaryDirectory() as scratch:
        stopped = Path(scratch, "normlab")
        stopped.write_text("#!/bin/sh\necho 'normlab tour: ch10::add_rmsnorm: too wide' >&2\n"
                           "exit 1\n")
        stopped.chmod(0o755)
        tours = run_tours(argparse.Namespace(normlab=stopped), SHAPES[:1], Path(scratch))
        (tour,) = tours.values()
        assert tour == {"kernels": [], "error": "normlab tour stopped: normlab tour: "
                        "ch10::add_rmsnorm: too wide"}, tour
    print("compare_peers self-test: ok")
    return 0


def main(argv):
    args = parse_arguments(argv)
    # normlab_torch from this repository, with the library of the build compared.
    sys.path.insert(0, str(REPO / "python"))
    os.environ.setdefault("NORMLAB_CAPI", str(Path(args.build) / "python" / "libnormlab_capi.so"))
    if args.self_test:
        return self_test()
    tolerance = tolerances()
    if args.dry_run:
        print_plan(args, tolerance)
        return 0
    try:
        import torch
    except ImportError:
        print("compare_peers: PyTorch is not installed here; nothing to compare "
              "(pip install torch on a machine with a CUDA GPU).")
        return 1 if args.require_torch else 0
    if not torch.cuda.is_available():
        print("compare_peers: PyTorch sees no CUDA GPU; nothing to compare.")
        return 1 if args.require_torch else 0
    if not args.normlab.exists():
        sys.exit(f"compare_peers: no normlab program at {args.normlab}; build it first: "
                 f"cmake --build {args.build} --target normlab")

    import torch._dynamo

    for limit in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 64)
    with tempfile.TemporaryDirectory() as scratch:
        tours = run_tours(args, args.problems, Path(scratch))
    bench = Bench(torch, args)
    roof = bench.copy_roof_gbps()
    # The floor of the few-row group: a kernel that does nothing (a busy-wait of 0 cycles),
    # timed as every column is.
    empty_kernel_ms = bench.median_ms(lambda: torch.cuda._sleep(0))
    print(f"empty kernel, timed as every column: {empty_kernel_ms * 1e3:.1f} us", flush=True)
    peers = make_peers()
    report = {
        "gpu": torch.cuda.get_device_name(0), "driver": driver_version(),
        "torch_version": torch.__version__, "cuda_version": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(["python3", "bench/compare_peers.py", *argv]),
        "copy_roof_gbps": roof,
        "empty_kernel_ms": empty_kernel_ms,
        "normlab_copy_roof_gbps": {f"{m}x{n}-{d}": t.get("copy_roof_gbps")
                                   for (m, n, d), t in tours.items()},
        "timing": {"warmup": args.warmup, "repetitions": args.repetitions,
                   "statistic": "median", "l2_flush": "2x L2 written before each repetition",
                   "head_start_cycles": HEAD_START_CYCLES},
        "tolerances": {d: {"abs": a, "rel": r} for d, (a, r) in tolerance.items()},
        "parameter_gradient_abs_tolerance": "abs * sqrt(rows)",
        "groups": GROUPS,
        "rows": [],
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for problem in args.problems:
        report["rows"].append(measure_row(torch, args, bench, problem, tours, peers, tolerance,
                                          roof))
        # Written after every row: a run cut short still leaves the rows it finished.
        report["complete"] = len(report["rows"]) == len(args.problems)
        report["versions"] = versions(peers)
        report["peers"] = {name: peer.reason or ("imported" if peer.loaded else "not used")
                           for name, peer in peers.items()}
        (out / RESULT_FILE).write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {out / RESULT_FILE}; the table and charts: "
          f"python3 book/plot_peers.py {out / RESULT_FILE}")
    failed = [c for r in report["rows"] for c in r.get("checks", []) if c["passed"] is False]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
