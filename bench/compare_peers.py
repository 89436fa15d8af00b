#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""normlab next to the norms a user would otherwise pick: one GPU, one process, one table.

    python3 bench/compare_peers.py [--build DIR] [--normlab PATH] [--out DIR] [--only TEXT]
                                   [--repetitions N] [--warmup N] [--no-compile] [--check-all]
                                   [--require-torch] [--dry-run] [--self-test]
    python3 bench/compare_peers.py --sweep {bf16,fp16,fp32} [--resume] [--budget-s SECONDS]
                                   [--build DIR] [--out DIR] [--only TEXT] [--repetitions N]
                                   [--warmup N] [--no-compile] [--require-torch] [--dry-run]
    python3 bench/compare_peers.py --summary FILE...

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
broken peers, and the sweep's grid, resume and summary arithmetic, and needs neither.

--sweep DTYPE measures a grid instead of SHAPES, forward only, quick enough to re-run whenever a
kernel changes (issue 50's acceptance instrument):
  - ops rmsnorm, layernorm and add_rmsnorm; widths SWEEP_WIDTHS: 25 for bf16 (256 to 65536),
    and for fp16 and fp32 every third of those starting with 256 (256, 768, 1536, 2560, 3584,
    6144, 10240, 16384, 65536);
    rows 1, 32, 256 and the smallest count whose bytes (the bytes model above) reach 128 MiB,
    one row where that count is one of the three;
  - columns torch.compile, Liger, QuACK, FlashInfer only where it imports, and normlab's torch
    op with the name of the kernel its dispatcher picks (Library.plan of normlab_torch.capi, in
    process, on the row's own tensors). Eager PyTorch and the hand-written fp32 functions cannot
    win and are left out, and so are `normlab tour`, `normlab explain` and `normlab check`: the
    sweep needs only libnormlab_capi.so, not the normlab program;
  - torch.compile is compiled once per op, dtype and width and kept across that width's row
    counts: the row dimension of the inputs is marked dynamic (torch._dynamo.mark_dynamic)
    before each call, so the row counts of 2 and more share one graph. One row is a second,
    static graph: dynamo specializes sizes 0 and 1, a graph over dynamic rows never takes one.
    Each width's rows run largest first, so the one graph is compiled and its configurations
    picked at the row count where the bytes weigh most (a resumed run, at the first row of the
    width it measures);
  - every column's output is checked against float64 as above (a wrong output is a cell saying
    so, not timed), timing is the table's (L2 flush, GPU sleep head start, median), and each row
    also times the copy of its bytes.
Results go to SWEEP_DIR/peer_sweep-<dtype>.json (--out DIR overrides the folder), one line a
row, each row naming its run in the file's "runs" (date, GPU, driver, torch and peer versions,
the command, the git commit where readable, "-dirty" with uncommitted changes). The file is
rewritten after every row. Without --resume, a sweep first drops the file's rows of its grid on
the same GPU (rows of other GPUs stay); --resume keeps them and measures only the missing ones.
--budget-s SECONDS stops before the next row when the time since start plus that row's
estimate (the longest row measured so far that built a torch.compile graph, or that did not,
as the next does) and a margin would pass the budget: a call to a machine of ten minutes can
run a sweep in parts. The end prints a summary and writes it as Markdown next to the JSON
(peer_sweep-<dtype>.md); --summary FILE... does that alone, without PyTorch or a GPU. A sweep
exits 1 where normlab's torch op gave a wrong output on a row it measured, else 0, also when
--budget-s stopped it (its run in the file says where, and the summary how many rows of the
grid the file holds).

The summary: per GPU, dtype and op, and over the ops (and the dtypes, given several files),
the geometric mean over rows of the best peer's time / normlab's time (above 1, normlab's torch
op is faster), the worst row, every row below 0.95 and the count of rows where normlab leads.
The best peer is the fastest column other than normlab's (torch.compile, Liger, QuACK, and
FlashInfer where it ran) that passed its check on the row; a row where normlab failed its
check, or where no peer passed, has no ratio and is listed apart.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "book"))
import record_lines  # noqa: E402 (the layout of the committed result files, book/record_lines.py)

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

# The sweep (--sweep): its grid, columns and files.
SWEEP_DIR = REPO / "book" / "results" / "sweep"
SWEEP_FORMAT = 1
SWEEP_OPS = ("rmsnorm", "layernorm", "add_rmsnorm")
_SWEEP_WIDTHS_BF16 = (256, 512, 576, 768, 896, 1024, 1536, 2048, 2304, 2560, 2880, 3072, 3584,
                      4096, 5120, 6144, 7168, 8192, 10240, 12288, 14336, 16384, 24576, 32768,
                      65536)
# fp16 and fp32 take every third width, from 256: the dtypes models use less, at a third of
# the time.
SWEEP_WIDTHS = {"bf16": _SWEEP_WIDTHS_BF16, "fp16": _SWEEP_WIDTHS_BF16[::3],
                "fp32": _SWEEP_WIDTHS_BF16[::3]}
# Launch-bound rows, then one row count past what the L2 holds: there the bytes set the time.
SWEEP_FEW_ROWS = (1, 32, 256)
SWEEP_BULK_BYTES = 128 << 20
SWEEP_COLUMNS = ("torch.compile", "Liger", "QuACK", "FlashInfer", NORMLAB_TORCH)
SWEEP_BELOW = 0.95  # rows where normlab's ratio to the best peer is below this are listed
# Seconds kept free under --budget-s for writing the files and leaving the process.
SWEEP_BUDGET_MARGIN_S = 10.0


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
    # Rows wider than one block's registers hold: chapter 10's row over a cluster.
    Problem("layernorm_backward", 4096, 16384, "bf16", "backward"),
    *[Problem(op, m, n, dtype, "backward") for m, n, dtype in ((512, 32768, "bf16"),
                                                                (256, 65536, "bf16"),
                                                                (64, 131072, "fp32"))
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
    parser.add_argument("--out",
                        help=f"where {RESULT_FILE} goes (default: book/results), with --sweep "
                             "where peer_sweep-DTYPE.json and .md go (default: "
                             "book/results/sweep)")
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
                        help="check the cells of missing and broken peers and the sweep's "
                             "arithmetic, without torch or GPU")
    parser.add_argument("--sweep", choices=sorted(SWEEP_WIDTHS),
                        help="measure the grid of ops, widths and row counts of this dtype "
                             "(forward only) instead of the table's shapes")
    parser.add_argument("--resume", action="store_true",
                        help="with --sweep: keep the rows the file already has for this GPU and "
                             "measure only the missing ones")
    parser.add_argument("--budget-s", type=float,
                        help="with --sweep: stop, files written, before this many seconds since "
                             "the start would pass")
    parser.add_argument("--summary", nargs="+", metavar="FILE",
                        help="print the summary of sweep result files and write each one's "
                             "Markdown next to it; needs no torch or GPU")
    args = parser.parse_args(argv)
    if args.sweep is None and (args.resume or args.budget_s is not None):
        parser.error("--resume and --budget-s go with --sweep")
    if args.summary and args.sweep:
        parser.error("--summary reads result files; give it without --sweep")
    args.normlab = Path(args.normlab or Path(args.build) / "tools" / "normlab")
    if args.out is None:
        args.out = str(SWEEP_DIR if args.sweep else REPO / "book" / "results")
    shapes = sweep_grid(args.sweep) if args.sweep else SHAPES
    args.problems = [p for p in shapes if args.only in " ".join(p.describe().split())]
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
        add_tuned_kernels(args, problems, (rows, cols, dtype), tours[(rows, cols, dtype)], scratch)
    return tours


def add_tuned_kernels(args, problems, shape, tour, scratch):
    """The dispatcher's kernel for each row of @p shape, toured alone and added to @p tour where
    the registry's tour lacks it: with the GPU's tuned table it can be one configuration of a
    family (ch09_<op>@<config>), which `normlab tour --kernel NAME` runs when NAME is exact."""
    for problem in problems:
        chosen = dispatched_kernel(args.normlab, problem)
        if (problem.rows, problem.cols, problem.dtype) != shape or not chosen or \
                any(k["name"] == chosen for k in tour["kernels"]):
            continue
        out = scratch / f"tour-{chosen}-{'x'.join(map(str, shape))}.json"
        command = tour_command(args.normlab, *shape, scratch)[:-1] + [str(out), "--kernel", chosen]
        print("running " + shlex.join(command), flush=True)
        finished = subprocess.run(command, capture_output=True, text=True)
        if finished.returncode in (0, 1) and out.exists():
            tour["kernels"] += [k for k in json.loads(out.read_text())["kernels"]
                                if k["name"] == chosen]


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


def copy_of_row_bytes(torch, bench, problem, roof, quiet=False):
    """A copy that reads half the row's bytes model and writes the other half, timed as every
    column is: the share of the roof PyTorch's copy of the bytes reaches at this size (norm
    kernels can pass it, most on rows of a few megabytes). The 512 MiB roof is
    not reached by small problems: their start, last wave and the write-back of the dirty lines
    the flush leaves weigh more."""
    half = problem.bytes_moved() // 2
    source = torch.ones(half, dtype=torch.uint8, device="cuda")
    destination = torch.empty_like(source)
    copy = bandwidth(problem, bench.median_ms(lambda: destination.copy_(source)), roof)
    del source, destination
    if not quiet:
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


def fill_cell(entry, bench, problem, want, tolerance, roof, make_launch):
    """Checks the launch make_launch() returns against @p want and, where it passes, times it
    into @p entry; a string from make_launch, a wrong output or an exception is the cell's
    note."""
    try:
        launch = make_launch()
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
        fill_cell(entry, bench, problem, want, tolerance, roof,
                  lambda: column_launch(torch, column, problem, inputs, functions, peers))
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


# ---------------------------------------------------------------- the sweep: grid and files


def bulk_rows(op, cols, dtype):
    """The smallest row count whose bytes (Problem.bytes_moved) reach SWEEP_BULK_BYTES."""
    parameters = Problem(op, 0, cols, dtype, "").bytes_moved()
    per_row = Problem(op, 1, cols, dtype, "").bytes_moved() - parameters
    return max(1, -(-(SWEEP_BULK_BYTES - parameters) // per_row))


def sweep_grid(dtype):
    """The sweep's rows of @p dtype: op by op, width by width, each width's row counts largest
    first (torch.compile's one graph a width is built on the first; the module's docstring)."""
    return [Problem(op, rows, cols, dtype, f"sweep {dtype}")
            for op in SWEEP_OPS for cols in SWEEP_WIDTHS[dtype]
            for rows in sorted({*SWEEP_FEW_ROWS, bulk_rows(op, cols, dtype)}, reverse=True)]


def sweep_key(row):
    """What names a sweep row in a file: (op, dtype, rows, cols) of a Problem or a row."""
    if isinstance(row, Problem):
        return row.op, row.dtype, row.rows, row.cols
    return row["op"], row["dtype"], row["rows"], row["cols"]


def describe_row(row):
    op, dtype, rows, cols = sweep_key(row)
    return f"{op} {dtype} {rows} x {cols}"


def sweep_path(out, dtype):
    return Path(out) / f"peer_sweep-{dtype}.json"


def new_sweep_document(dtype):
    return {
        "format": SWEEP_FORMAT, "dtype": dtype,
        "grid": {"ops": list(SWEEP_OPS), "widths": list(SWEEP_WIDTHS[dtype]),
                 "rows": f"{', '.join(map(str, SWEEP_FEW_ROWS))} and the smallest count whose "
                         f"bytes reach {SWEEP_BULK_BYTES >> 20} MiB",
                 "columns": list(SWEEP_COLUMNS)},
        "ratio": "the best peer's time over normlab's torch op's; above 1, normlab is faster",
        "runs": [], "rows": [],
    }


def read_sweep(path, dtype=None):
    """The sweep file at @p path; a new document of @p dtype where there is none and @p dtype
    is given. Exits on a file of another format or dtype."""
    path = Path(path)
    if not path.exists() and dtype is not None:
        return new_sweep_document(dtype)
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        sys.exit(f"compare_peers: cannot read {path}: {first_line(error)}")
    if (not isinstance(document, dict) or document.get("format") != SWEEP_FORMAT
            or document.get("dtype") not in SWEEP_WIDTHS
            or dtype not in (None, document["dtype"])):
        sys.exit(f"compare_peers: {path} is not a sweep result file (format {SWEEP_FORMAT}"
                 + (f", {dtype}" if dtype else "") + ")")
    return document


def write_sweep(path, document):
    """Writes @p document whole, through a temporary file (a run stopped while writing leaves
    the file before): its runs and rows one a line (a re-run changes the lines of its rows
    only), the rows by GPU and in the grid's order."""
    order = {sweep_key(p): i for i, p in enumerate(sweep_grid(document["dtype"]))}
    rows = sorted(document["rows"],
                  key=lambda r: (r["gpu"], order.get(sweep_key(r), len(order)), sweep_key(r)))
    header = {k: v for k, v in document.items() if k not in ("runs", "rows")}
    text = record_lines.dumps({**header, "runs": document["runs"], "rows": rows})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(path.name + ".tmp")
    scratch.write_text(text)
    os.replace(scratch, path)


def sweep_pending(document, grid, gpu, resume):
    """The rows of @p grid to measure on @p gpu, and how many the document keeps. Without
    @p resume the document's rows of the grid on that GPU are dropped first (a new sweep of
    them); rows of other GPUs and of shapes outside the grid stay either way. Runs left without
    rows are dropped. Returns (the problems to measure, rows kept, rows dropped)."""
    keys = {sweep_key(p) for p in grid}
    ours = lambda row: row["gpu"] == gpu and sweep_key(row) in keys
    before = len(document["rows"])
    if not resume:
        document["rows"] = [r for r in document["rows"] if not ours(r)]
    done = {sweep_key(r) for r in document["rows"] if ours(r)}
    used = {r["run"] for r in document["rows"]}
    document["runs"] = [r for r in document["runs"] if r["id"] in used]
    return ([p for p in grid if sweep_key(p) not in done], len(done),
            before - len(document["rows"]))


def next_row_estimate(seconds, builds):
    """The seconds the next row is expected to take: the longest row so far of its kind
    (@p builds: whether it builds a torch.compile graph and a peer's kernels, the first row of a
    width or the one-row row), else the longest of the other kind, else 0. @p seconds maps
    True and False to the rows' times."""
    return max(seconds[builds] or seconds[not builds] or [0.0])


def git_commit():
    """HEAD of the repository with "-dirty" where tracked files changed, or None where git or
    the repository cannot say."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain",
                                  "--untracked-files=no"], capture_output=True, text=True,
                                 check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if changed else "") if head else None


# ---------------------------------------------------------------- the sweep: summary


def passed_ms(cell):
    """The median of a cell whose output passed its float64 check, else None: a time without a
    passed check never counts."""
    check = cell.get("check") or {}
    return cell.get("median_ms") if check.get("passed") is True and cell.get("median_ms") else None


def standing(row):
    """normlab's torch op against the best peer on one sweep row: {"ratio", "peer", "peer_ms",
    "normlab_ms", "kernel"}, or {"missing": why there is no ratio}."""
    cells = row.get("implementations", [])
    ours = next((c for c in cells if c["name"] == NORMLAB_TORCH), None)
    if ours is None:
        return {"missing": "no normlab cell"}
    ours_ms = passed_ms(ours)
    if ours_ms is None:
        return {"missing": "normlab: " + (ours.get("note") or "not timed")}
    timed = [(passed_ms(c), c["name"]) for c in cells if c["name"] != NORMLAB_TORCH]
    timed = [(ms, name) for ms, name in timed if ms]
    if not timed:
        said = "; ".join(f"{c['name']}: {c.get('note', 'not timed')}" for c in cells
                         if c["name"] != NORMLAB_TORCH)
        return {"missing": "no peer passed its check" + (f" ({said})" if said else "")}
    peer_ms, peer = min(timed)
    return {"ratio": peer_ms / ours_ms, "peer": peer, "peer_ms": peer_ms, "normlab_ms": ours_ms,
            "kernel": row.get("normlab_kernel")}


def summarize(rows):
    """The figures of a set of sweep rows: rows, scored (rows with a ratio), geo_mean, leads
    (ratio above 1), worst and below (ratio under SWEEP_BELOW, worst first) as (row, standing),
    missing as (row, why)."""
    scored, missing = [], []
    for row in rows:
        found = standing(row)
        if "ratio" in found:
            scored.append((row, found))
        else:
            missing.append((row, found["missing"]))
    ratios = [found["ratio"] for _, found in scored]
    ranked = sorted(scored, key=lambda pair: pair[1]["ratio"])
    return {"rows": len(rows), "scored": len(scored),
            "geo_mean": math.exp(statistics.fmean(map(math.log, ratios))) if ratios else None,
            "leads": sum(r > 1 for r in ratios),
            "worst": ranked[0] if ranked else None,
            "below": [pair for pair in ranked if pair[1]["ratio"] < SWEEP_BELOW],
            "missing": missing}


def summary_sections(documents):
    """[(gpu, dtype, document or None, [(label, rows)])]: per GPU and dtype its ops and all of
    them, then per GPU over several dtypes all of them."""
    sections = []
    by_gpu = {}
    for document in documents:
        for gpu in dict.fromkeys(r["gpu"] for r in document["rows"]):
            rows = [r for r in document["rows"] if r["gpu"] == gpu]
            by_gpu.setdefault(gpu, []).append(rows)
            groups = [(op, [r for r in rows if r["op"] == op]) for op in SWEEP_OPS]
            sections.append((gpu, document["dtype"], document,
                             [g for g in groups if g[1]] + [("all ops", rows)]))
    for gpu, parts in by_gpu.items():
        if len(parts) > 1:
            sections.append((gpu, "all dtypes", None,
                             [("all ops", [r for rows in parts for r in rows])]))
    return sections


def ratio_text(pair):
    row, found = pair
    return (f"{describe_row(row)}: {found['ratio']:.3f} (normlab {found['normlab_ms'] * 1e3:.1f}"
            f" us, {found['kernel'] or 'kernel unknown'}; {found['peer']} "
            f"{found['peer_ms'] * 1e3:.1f} us)")


def measured_of_grid(document, gpu):
    keys = {sweep_key(p) for p in sweep_grid(document["dtype"])}
    have = {sweep_key(r) for r in document["rows"] if r["gpu"] == gpu}
    return len(have & keys), len(keys)


def format_summary(documents):
    """The summary as text, for the console."""
    lines = []
    for gpu, dtype, document, groups in summary_sections(documents):
        heading = f"sweep summary, {gpu}, {dtype}"
        if document is not None:
            have, total = measured_of_grid(document, gpu)
            heading += f": {have} of {total} grid rows measured"
        lines += [heading, f"  {'op':<12} {'ratios':>7} {'geo-mean':>9} {'leads':>7} "
                           f"{'below ' + str(SWEEP_BELOW):>10}  worst row"]
        for label, rows in groups:
            s = summarize(rows)
            geo = f"{s['geo_mean']:.3f}" if s["geo_mean"] else "-"
            worst = ratio_text(s["worst"]) if s["worst"] else "-"
            lines.append(f"  {label:<12} {str(s['scored']) + '/' + str(s['rows']):>7} {geo:>9} "
                         f"{s['leads']:>7} {len(s['below']):>10}  {worst}")
        everything = summarize(groups[-1][1])
        if document is not None:
            lines += [f"  below {SWEEP_BELOW}: " + ratio_text(pair) for pair in everything["below"]]
            lines += [f"  no ratio: {describe_row(row)}: {why}"
                      for row, why in everything["missing"]]
    return "\n".join(lines) if lines else "sweep summary: no rows"


def markdown_cell(row):
    if row is None:
        return "-"
    found = standing(row)
    if "ratio" not in found:
        return "normlab failed" if found["missing"].startswith("normlab") else "no peer"
    text = f"{found['ratio']:.2f}"
    return f"**{text}**" if found["ratio"] < SWEEP_BELOW else text


def sweep_markdown(document):
    """The summary of one sweep file as Markdown: the runs, the figures per op, a table of the
    ratio per width and row count per op, the rows below SWEEP_BELOW and those without a
    ratio."""
    dtype = document["dtype"]
    out = [f"# normlab's torch op against its peers: the {dtype} sweep", "",
           "Written by `bench/compare_peers.py` from `" + f"peer_sweep-{dtype}.json" + "`. "
           "Ratio: the best peer's GPU time over normlab's torch op's on the row (above 1, "
           "normlab is faster); the best peer is the fastest of torch.compile, Liger, QuACK "
           "(and FlashInfer where it ran) whose output passed the float64 check. Every "
           f"implementation's output was checked before it was timed. Bold: below {SWEEP_BELOW}.",
           ""]
    runs = {r["id"]: r for r in document["runs"]}
    for gpu, _, _, groups in summary_sections([document]):
        have, total = measured_of_grid(document, gpu)
        out += [f"## {gpu}: {have} of {total} rows", ""]
        for run_id in dict.fromkeys(r["run"] for r in document["rows"] if r["gpu"] == gpu):
            run = runs.get(run_id, {})
            said = [run.get("date", "?"), f"commit {run.get('commit') or 'unknown'}",
                    f"driver {run.get('driver', '?')}",
                    *(f"{d} {v}" for d, v in run.get("versions", {}).items())]
            out.append(f"- run {run_id}: {', '.join(said)}: `{run.get('command', '?')}`"
                       + (f"; {run['stopped']}" if run.get("stopped") else ""))
        out += ["", f"| op | rows with a ratio | geo-mean | normlab leads | below {SWEEP_BELOW} "
                    "| worst row |", "|---|---:|---:|---:|---:|---|"]
        for label, rows in groups:
            s = summarize(rows)
            geo = f"{s['geo_mean']:.3f}" if s["geo_mean"] else "-"
            worst = ratio_text(s["worst"]) if s["worst"] else "-"
            out.append(f"| {label} | {s['scored']} of {s['rows']} | {geo} | {s['leads']} | "
                       f"{len(s['below'])} | {worst} |")
        rows_of_gpu = [r for r in document["rows"] if r["gpu"] == gpu]
        by_key = {sweep_key(r): r for r in rows_of_gpu}
        for op in SWEEP_OPS:
            if not any(r["op"] == op for r in rows_of_gpu):
                continue
            out += ["", f"### {op}: ratio per width and row count", "",
                    "| width | " + " | ".join(map(str, SWEEP_FEW_ROWS))
                    + f" | {SWEEP_BULK_BYTES >> 20} MiB | its rows | normlab's kernels |",
                    "|---:|" + "---:|" * (len(SWEEP_FEW_ROWS) + 2) + "---|"]
            for cols in SWEEP_WIDTHS[dtype]:
                bulk = bulk_rows(op, cols, dtype)
                cells = [by_key.get((op, dtype, m, cols)) for m in (*SWEEP_FEW_ROWS, bulk)]
                if not any(cells):
                    continue
                kernels = dict.fromkeys(r.get("normlab_kernel") for r in cells
                                        if r and r.get("normlab_kernel"))
                out.append(f"| {cols} | " + " | ".join(markdown_cell(r) for r in cells)
                           + f" | {bulk} | {', '.join(kernels) or '-'} |")
        everything = summarize(rows_of_gpu)
        if everything["below"]:
            out += ["", f"### Rows below {SWEEP_BELOW}", ""]
            out += ["- " + ratio_text(pair) for pair in everything["below"]]
        if everything["missing"]:
            out += ["", "### Rows without a ratio", ""]
            out += [f"- {describe_row(row)}: {why}" for row, why in everything["missing"]]
        out.append("")
    return "\n".join(out) + "\n"


def write_summary(paths):
    """--summary: prints the summary of the sweep files at @p paths and writes each one's
    Markdown next to it."""
    documents = [read_sweep(path) for path in paths]
    print(format_summary(documents))
    for path, document in zip(paths, documents):
        markdown = Path(path).with_suffix(".md")
        try:
            markdown.write_text(sweep_markdown(document))
        except OSError as error:  # a read-only copy of the results still gets its summary
            print(f"compare_peers: could not write {markdown}: {first_line(error)}")
            continue
        print(f"wrote {markdown}")
    return 0


# ---------------------------------------------------------------- the sweep: plan and run


def sweep_columns(no_compile):
    """The table's columns the sweep keeps (SWEEP_COLUMNS), without torch.compile with
    --no-compile; FlashInfer is dropped later where it does not import."""
    return [c for c in COLUMNS if c.name in SWEEP_COLUMNS and not (c.compiled and no_compile)]


def print_sweep_plan(args, tolerance):
    dtype, grid = args.sweep, args.problems
    peers = make_peers()
    # FlashInfer's column is kept where it imports, which the run finds out; here, where its
    # distribution is installed.
    columns = [c.name for c in sweep_columns(args.no_compile)
               if c.name != "FlashInfer" or peers["FlashInfer"].version()]
    widths = sorted({p.cols for p in grid})
    ops = list(dict.fromkeys(p.op for p in grid))
    print(f"sweep {dtype}: {len(grid)} rows ({', '.join(ops)} x {len(widths)} widths x the row "
          f"counts {', '.join(map(str, SWEEP_FEW_ROWS))} and the smallest whose bytes reach "
          f"{SWEEP_BULK_BYTES >> 20} MiB, one row where that count is among them)"
          + ("" if args.only == "" else f", those matching --only '{args.only}'"))
    print("columns: " + "; ".join(columns) + " (with the kernel its dispatcher picks, "
          "Library.plan in process)"
          + ("" if "FlashInfer" in columns else "; FlashInfer is not installed: left out"))
    for peer in peers.values():
        version = peer.version()
        described = f"{peer.distribution} {version}" if peer.distribution else version
        print(f"peer {peer.name}: " + (described if version else "not installed"))
    print("tolerances (common/src/compare.cpp): "
          + ", ".join(f"{d} abs {a:g} + rel {r:g}" for d, (a, r) in tolerance.items()))
    # One graph over the row counts of 2 and more of each width, and one for the single row.
    graphs = len({(p.op, p.cols) for p in grid if p.rows > 1}) + sum(p.rows == 1 for p in grid)
    timed = len(columns) + 1  # and the copy of the row's bytes
    print(f"per row: each column checked against float64, then {args.warmup} warm-up and the "
          f"median of {args.repetitions}, L2 flushed and a GPU sleep of at least "
          f"{HEAD_START_CYCLES} cycles before each; and a copy of the row's bytes timed alike: "
          f"{len(grid)} x {timed} x {args.warmup + args.repetitions} = "
          f"{len(grid) * timed * (args.warmup + args.repetitions)} timed launches"
          + (f"; torch.compile builds {graphs} graphs" if "torch.compile" in columns else ""))
    path = sweep_path(args.out, dtype)
    existing = read_sweep(path, dtype)["rows"] if path.exists() else []
    held = {}
    for row in existing:
        held[row["gpu"]] = held.get(row["gpu"], 0) + 1
    print(f"results: {path} and {path.with_suffix('.md')}; "
          + (("it holds " + ", ".join(f"{n} rows of {g}" for g, n in held.items()))
             if held else "no rows yet"))
    for op in ops:
        for cols in widths:
            counts = [p.rows for p in grid if p.op == op and p.cols == cols]
            if counts:
                print(f"  {op:<12} {dtype} width {cols:>6}: rows " + ", ".join(map(str, counts)))


class DispatchedKernel:
    """The kernel normlab's dispatcher picks for the torch op's call on a row: Library.plan of
    normlab_torch.capi, in process, on the library the op loaded and on a call made as the op
    makes it on its common path (_plain_call: the row's tensors, parameters in x's dtype, no
    statistics; y over x and the residual in place for the fused add)."""

    def __init__(self, torch, modules):
        self.torch = torch
        self.capi = importlib.import_module("normlab_torch.capi")
        self.library = self.capi.Library(modules["normlab_torch"].library_path())

    def __call__(self, problem, t):
        """(kernel name, None), or (None, why the dispatcher refused)."""
        capi = self.capi
        op = {"rmsnorm": capi.OP_RMSNORM, "layernorm": capi.OP_LAYERNORM,
              "add_rmsnorm": capi.OP_ADD_RMSNORM}[problem.op]
        dtype = {"fp32": capi.DTYPE_F32, "fp16": capi.DTYPE_F16,
                 "bf16": capi.DTYPE_BF16}[problem.dtype]
        fused = problem.op == "add_rmsnorm"
        x = t["x"]
        y = x if fused else self.torch.empty_like(x)  # alive until plan() has read its address
        call = capi.NormlabCall(op, dtype, dtype, 0, problem.rows, problem.cols, EPS,
                                x.data_ptr(), problem.cols, None, 0, y.data_ptr(), problem.cols)
        call.weight = t["w"].data_ptr()
        if problem.is_layernorm():
            call.bias = t["b"].data_ptr()
        if fused:
            call.residual = call.residual_out = t["r"].data_ptr()
            call.residual_stride = call.residual_out_stride = problem.cols
        try:
            return self.library.plan(call)[0], None
        except Exception as error:
            return None, first_line(error)


class CompiledOnce:
    """torch.compile of the row's forward function, one per op, dtype and width: a new width
    resets dynamo and compiles afresh; the rows of a width share it (the module's docstring)."""

    def __init__(self, torch):
        self.torch = torch
        self.functions = torch_functions(torch)
        self.key = None
        self.function = None

    def __call__(self, problem):
        key = (problem.op, problem.dtype, problem.cols)
        if key != self.key:
            self.torch._dynamo.reset()
            self.function = self.torch.compile(self.functions[problem.op])
            self.key = key
        return self.function


def measure_sweep_row(torch, bench, problem, columns, compiled, peers, kernel_of, tolerance,
                      roof):
    """Every sweep column on one row, checked and timed; the kernel normlab's dispatcher picks;
    the copy of the row's bytes; normlab's ratio to the best peer."""
    inputs = make_inputs(torch, problem)
    if problem.rows > 1:  # one graph over the row counts; dynamo specializes a single row
        for name in ("x", "r"):
            torch._dynamo.mark_dynamic(inputs[name], 0)
    want = reference(torch, problem, inputs)
    cells = []
    for column in columns:
        cell = {"name": column.name, "peer": column.peer or "PyTorch"}
        cells.append(cell)
        fill_cell(cell, bench, problem, want, tolerance, roof,
                  (lambda: torch_launch(torch, problem, inputs, compiled(problem)))
                  if column.compiled else
                  (lambda: column_launch(torch, column, problem, inputs, None, peers)))
        if "check" in cell:  # passed and the verdict, which names the worst error; a file of
            # a few hundred rows leaves out the per-output detail
            cell["check"] = {"passed": cell["check"]["passed"],
                             "verdict": cell["check"]["verdict"]}
    row = {"op": problem.op, "dtype": problem.dtype, "rows": problem.rows, "cols": problem.cols,
           "bytes": problem.bytes_moved(), "implementations": cells}
    if kernel_of is not None:
        row["normlab_kernel"], refused = kernel_of(problem, inputs)
        if refused:
            row["normlab_kernel_note"] = refused
    row["copy_of_row_bytes"] = copy_of_row_bytes(torch, bench, problem, roof, quiet=True)
    found = standing(row)
    if "ratio" in found:
        row["best_peer"] = {"name": found["peer"], "median_ms": found["peer_ms"]}
        row["normlab_vs_best_peer"] = found["ratio"]
    del inputs, want
    torch.cuda.empty_cache()
    return row, found


def progress_line(index, total, problem, row, found, seconds):
    """One line a row: where the sweep is, the shape, normlab against the best peer."""
    head = f"[{index:>{len(str(total))}}/{total}] {problem.describe()}"
    if "ratio" in found:
        said = (f"normlab {found['normlab_ms'] * 1e3:8.1f} us {found['kernel'] or '?':<24} "
                f"{found['peer']} {found['peer_ms'] * 1e3:8.1f} us  {found['ratio']:.3f}x"
                + ("  below" if found["ratio"] < SWEEP_BELOW else ""))
    else:
        said = "no ratio: " + found["missing"]
    # Cells without a time, but not the peers that are not installed nor normlab's cell where
    # the line already says why it has no ratio.
    failed = [f"    {c['name']}: {c['note']}" for c in row["implementations"]
              if c.get("note") and not c["note"].startswith("not installed")
              and not (c["name"] == NORMLAB_TORCH and "ratio" not in found)]
    return "\n".join([f"{head}  {said}  ({seconds:.1f} s)", *failed])


def run_sweep(torch, args, argv, tolerance, started):
    """--sweep: measures the grid's missing rows into the dtype's file, row by row, within
    --budget-s; then prints the summary and writes the Markdown."""
    path = sweep_path(args.out, args.sweep)
    document = read_sweep(path, args.sweep)
    gpu = torch.cuda.get_device_name(0)
    pending, kept, dropped = sweep_pending(document, args.problems, gpu, args.resume)
    print(f"sweep {args.sweep} on {gpu}: {len(pending)} of {len(args.problems)} rows to measure"
          + (f", {kept} kept from earlier runs" if args.resume else "")
          + (f", {dropped} measured before dropped (--resume keeps them)" if dropped else "")
          + f"; results in {path}", flush=True)
    if not pending:
        print(format_summary([document]))
        write_sweep(path, document)
        path.with_suffix(".md").write_text(sweep_markdown(document))
        return 0
    peers = make_peers()
    columns = sweep_columns(args.no_compile)
    if peers["FlashInfer"].load() is None:
        columns = [c for c in columns if c.name != "FlashInfer"]
    normlab = peers[NORMLAB_TORCH].load()
    kernel_of = DispatchedKernel(torch, normlab) if normlab is not None else None
    print("columns: " + "; ".join(c.name for c in columns)
          + ("" if normlab else f" ({NORMLAB_TORCH}: {peers[NORMLAB_TORCH].reason})"), flush=True)
    bench = Bench(torch, args)
    roof = bench.copy_roof_gbps()
    run = {
        "id": max((r["id"] for r in document["runs"]), default=-1) + 1,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": gpu, "driver": driver_version(), "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "command": shlex.join(["python3", "bench/compare_peers.py", *argv]),
        "commit": git_commit(),
        "normlab_capi": str(normlab["normlab_torch"].library_path()) if normlab else None,
        "columns": [c.name for c in columns],
        "copy_roof_gbps": roof,
        "empty_kernel_ms": bench.median_ms(lambda: torch.cuda._sleep(0)),
        "timing": {"warmup": args.warmup, "repetitions": args.repetitions,
                   "statistic": "median", "l2_flush": "2x L2 written before each repetition",
                   "head_start_cycles": HEAD_START_CYCLES},
        "tolerances": {d: {"abs": a, "rel": r} for d, (a, r) in tolerance.items()},
        "rows_measured": 0,
    }
    document["runs"].append(run)
    compiled = CompiledOnce(torch)
    seconds = {True: [], False: []}  # the rows' times, by whether they built a graph
    previous = None
    stopped = None
    failed = 0
    for index, problem in enumerate(pending, 1):
        width = (problem.op, problem.dtype, problem.cols)
        builds = width != previous or problem.rows == 1
        previous = width
        if args.budget_s is not None:
            expected = next_row_estimate(seconds, builds)
            if time.monotonic() - started + expected + SWEEP_BUDGET_MARGIN_S > args.budget_s:
                stopped = (f"stopped before row {index} of {len(pending)} (--budget-s "
                           f"{args.budget_s:g}: {time.monotonic() - started:.0f} s spent, the "
                           f"next row expected to take {expected:.0f} s)")
                break
        began = time.monotonic()
        row, found = measure_sweep_row(torch, bench, problem, columns, compiled, peers,
                                       kernel_of, tolerance, roof)
        took = time.monotonic() - began
        seconds[builds].append(took)
        row.update({"gpu": gpu, "run": run["id"], "seconds": round(took, 2)})
        document["rows"].append(row)
        failed += found.get("missing", "").startswith("normlab: wrong")
        run.update({"rows_measured": index, "versions": versions(peers),
                    "peers": {name: peer.reason or ("imported" if peer.loaded else "not used")
                              for name, peer in peers.items()},
                    "elapsed_s": round(time.monotonic() - started, 1)})
        write_sweep(path, document)  # after every row: a run cut short keeps what it measured
        print(progress_line(index, len(pending), problem, row, found, took), flush=True)
    run["stopped"] = stopped
    run["elapsed_s"] = round(time.monotonic() - started, 1)
    write_sweep(path, document)
    print(format_summary([document]))
    markdown = path.with_suffix(".md")
    markdown.write_text(sweep_markdown(document))
    left = len(pending) - run["rows_measured"]
    if stopped:
        print(f"{stopped}; {left} rows left: run again with --resume")
    print(f"wrote {path} and {markdown}; elapsed {time.monotonic() - started:.0f} s", flush=True)
    return 1 if failed else 0


def made_up_row(op, rows, cols, gpu, cells, kernel="chXX_made_up", dtype="bf16"):
    """A sweep row of made-up cells: (name, ms, passed) times, or (name, note) for a cell with
    none."""
    made = []
    for cell in cells:
        name, *said = cell
        entry = {"name": name, "peer": "made up"}
        if isinstance(said[0], str):
            entry["note"] = said[0]
        else:
            entry["median_ms"] = said[0]
            entry["check"] = {"passed": said[1], "verdict": "made up"}
            if not said[1]:
                entry["note"] = "wrong: made up"
        made.append(entry)
    return {"op": op, "dtype": dtype, "rows": rows, "cols": cols, "gpu": gpu, "run": 0,
            "implementations": made, "normlab_kernel": kernel}


def sweep_self_test():
    """The sweep's grid, file, resume, budget estimate and summary arithmetic on made-up rows;
    no torch, no GPU. Each figure is asserted exactly, so that an inverted ratio, a peer counted
    without a passed check or another GPU's row counted in fails."""
    grids = {dtype: sweep_grid(dtype) for dtype in SWEEP_WIDTHS}
    # 3 ops x widths x 4 row counts, less the widths whose 128 MiB count is 256: add_rmsnorm at
    # 65536 in every dtype, and rmsnorm at 65536 in fp32.
    assert {d: len(g) for d, g in grids.items()} == {"bf16": 299, "fp16": 107, "fp32": 107}, \
        {d: len(g) for d, g in grids.items()}
    assert SWEEP_WIDTHS["fp16"] == (256, 768, 1536, 2560, 3584, 6144, 10240, 16384, 65536)
    for problem in (p for g in grids.values() for p in g if p.rows not in SWEEP_FEW_ROWS):
        fewer = Problem(problem.op, problem.rows - 1, problem.cols, problem.dtype, "")
        assert problem.bytes_moved() >= SWEEP_BULK_BYTES > fewer.bytes_moved(), problem
    assert [p.rows for p in grids["bf16"] if (p.op, p.cols) == ("rmsnorm", 4096)] == \
        [8192, 256, 32, 1]
    assert bulk_rows("rmsnorm", 256, "bf16") == 131072
    assert bulk_rows("layernorm", 65536, "fp32") == 255  # its parameters count too
    assert len({sweep_key(p) for p in grids["bf16"]}) == len(grids["bf16"])

    # The summary: GPU A's rmsnorm rows score 1.5 (Liger; QuACK's faster time failed its
    # check), 0.9 (QuACK; Liger failed) and 0.96 (torch.compile); normlab's wrong output on
    # 256 x 4096 and layernorm's row without a passing peer have no ratio; layernorm 32 x 256
    # scores 1.2; GPU B's row is its own section.
    a, b = "GPU A", "GPU B"
    rows = [
        made_up_row("rmsnorm", 8192, 4096, a, [("torch.compile", 2.0, True), ("Liger", 1.5, True),
                                               ("QuACK", 0.5, False), (NORMLAB_TORCH, 1.0, True)]),
        made_up_row("rmsnorm", 1, 4096, a, [("Liger", "failed: made up"), ("QuACK", 0.009, True),
                                            (NORMLAB_TORCH, 0.010, True)], kernel="chXX_one"),
        made_up_row("rmsnorm", 32, 4096, a, [("torch.compile", 0.0096, True),
                                             (NORMLAB_TORCH, 0.010, True)]),
        made_up_row("rmsnorm", 256, 4096, a, [("Liger", 0.02, True),
                                              (NORMLAB_TORCH, 0.01, False)]),
        made_up_row("layernorm", 1, 256, a, [("Liger", "not installed"), ("QuACK", 0.003, False),
                                             (NORMLAB_TORCH, 0.004, True)]),
        made_up_row("layernorm", 32, 256, a, [("QuACK", 0.006, True),
                                              (NORMLAB_TORCH, 0.005, True)]),
        made_up_row("rmsnorm", 8192, 4096, b, [("Liger", 0.5, True), (NORMLAB_TORCH, 1.0, True)]),
    ]
    rms = summarize(rows[:4])
    assert math.isclose(rms["geo_mean"], (1.5 * 0.9 * 0.96) ** (1 / 3)), rms["geo_mean"]
    assert (rms["rows"], rms["scored"], rms["leads"]) == (4, 3, 1), rms
    assert rms["worst"][0] is rows[1] and math.isclose(rms["worst"][1]["ratio"], 0.9)
    assert rms["worst"][1]["peer"] == "QuACK" and rms["worst"][1]["kernel"] == "chXX_one"
    assert [row for row, _ in rms["below"]] == [rows[1]], rms["below"]
    assert [row for row, _ in rms["missing"]] == [rows[3]]
    assert rms["missing"][0][1] == "normlab: wrong: made up", rms["missing"]
    assert standing(rows[0])["peer"] == "Liger" and math.isclose(standing(rows[0])["ratio"], 1.5)
    assert standing(rows[4])["missing"].startswith("no peer passed its check"), standing(rows[4])
    document = new_sweep_document("bf16")
    document["rows"] = rows
    document["runs"] = [{"id": 0, "date": "made up", "command": "made up"}]
    sections = summary_sections([document])
    labels = [(gpu, dtype, [label for label, _ in groups]) for gpu, dtype, _, groups in sections]
    assert labels == [(a, "bf16", ["rmsnorm", "layernorm", "all ops"]),
                      (b, "bf16", ["rmsnorm", "all ops"])], labels
    whole = summarize(sections[0][3][-1][1])
    assert math.isclose(whole["geo_mean"], (1.5 * 0.9 * 0.96 * 1.2) ** (1 / 4)), whole
    assert (whole["scored"], whole["leads"], len(whole["missing"])) == (4, 2, 2), whole
    assert math.isclose(summarize(sections[1][3][-1][1])["geo_mean"], 0.5)
    assert summarize([])["geo_mean"] is None

    # The file: written and read back whole, one row a line; --summary prints the figures and
    # writes the Markdown next to the file.
    with tempfile.TemporaryDirectory() as scratch:
        path = sweep_path(scratch, "bf16")
        write_sweep(path, document)
        again = read_sweep(path, "bf16")
        assert sorted(map(json.dumps, again["rows"])) == sorted(map(json.dumps, rows))
        assert len(path.read_text().splitlines()) == len(rows) + len(document["runs"]) + 10
        text = format_summary([again])
        assert f"sweep summary, {a}, bf16: 6 of 299 grid rows measured" in text, text
        assert "  all ops          4/6     1.117       2          1  rmsnorm bf16 1 x 4096" \
            in text, text
        assert "below 0.95: rmsnorm bf16 1 x 4096: 0.900 (normlab 10.0 us, chXX_one; QuACK " \
               "9.0 us)" in text, text
        markdown = sweep_markdown(again)
        assert "| 4096 | **0.90** | 0.96 | normlab failed | 1.50 | 8192 |" in markdown, markdown
        assert "| 256 | no peer | 1.20 | - | - | 131071 |" in markdown, markdown
        assert "| 512 |" not in markdown, "a width without rows has no line"
        assert f"| all ops | 4 of 6 | {whole['geo_mean']:.3f} | 2 | 1 |" in markdown, markdown
        with open(os.devnull, "w") as quiet:
            saved, sys.stdout = sys.stdout, quiet
            try:
                assert main(["--summary", str(path)]) == 0
            finally:
                sys.stdout = saved
        assert path.with_suffix(".md").read_text() == markdown

    # Resume: GPU A's rows of the grid (rmsnorm at 4096: 8192 and 1 rows, of run 1) are not
    # measured again; without --resume they are dropped, and run 1 with them. GPU A's row
    # outside the grid and GPU B's row stay either way; run 2, without rows, goes.
    grid = [p for p in grids["bf16"] if (p.op, p.cols) == ("rmsnorm", 4096)]
    for resume, pending_rows, kept, dropped, runs in ((True, [256, 32], 2, 0, [0, 1]),
                                                      (False, [8192, 256, 32, 1], 0, 2, [0])):
        copy = json.loads(json.dumps({**document, "rows": [rows[i] for i in (0, 1, 4, 6)]}))
        copy["rows"][0]["run"] = copy["rows"][1]["run"] = 1
        copy["runs"] += [{"id": 1}, {"id": 2}]
        pending, kept_, dropped_ = sweep_pending(copy, grid, a, resume)
        assert ([p.rows for p in pending], kept_, dropped_) == (pending_rows, kept, dropped), \
            (resume, [p.rows for p in pending], kept_, dropped_)
        assert [r["id"] for r in copy["runs"]] == runs, copy["runs"]
        assert [(r["gpu"], r["op"]) for r in copy["rows"][-2:]] == [(a, "layernorm"),
                                                                    (b, "rmsnorm")]

    # The budget's estimate of the next row.
    assert next_row_estimate({True: [], False: []}, True) == 0
    assert next_row_estimate({True: [20.0, 12.0], False: [1.0, 2.0]}, True) == 20.0
    assert next_row_estimate({True: [20.0], False: [1.0, 2.0]}, False) == 2.0
    assert next_row_estimate({True: [], False: [3.0]}, True) == 3.0


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
    sweep_self_test()
    print("compare_peers self-test: ok")
    return 0


def configure_dynamo(torch):
    """Room for the graphs torch.compile keeps for one function across rows."""
    import torch._dynamo

    for limit in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 64)


def main(argv):
    started = time.monotonic()  # --budget-s counts from here
    args = parse_arguments(argv)
    # normlab_torch from this repository, with the library of the build compared.
    sys.path.insert(0, str(REPO / "python"))
    os.environ.setdefault("NORMLAB_CAPI", str(Path(args.build) / "python" / "libnormlab_capi.so"))
    if args.self_test:
        return self_test()
    if args.summary:
        return write_summary(args.summary)
    tolerance = tolerances()
    if args.dry_run:
        (print_sweep_plan if args.sweep else print_plan)(args, tolerance)
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
    if args.sweep:  # the sweep needs libnormlab_capi.so only, not the normlab program
        configure_dynamo(torch)
        return run_sweep(torch, args, argv, tolerance, started)
    if not args.normlab.exists():
        sys.exit(f"compare_peers: no normlab program at {args.normlab}; build it first: "
                 f"cmake --build {args.build} --target normlab")
    configure_dynamo(torch)
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
        (out / RESULT_FILE).write_text(record_lines.dumps(report))
    print(f"wrote {out / RESULT_FILE}; the table and charts: "
          f"python3 book/plot_peers.py {out / RESULT_FILE}")
    failed = [c for r in report["rows"] for c in r.get("checks", []) if c["passed"] is False]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
