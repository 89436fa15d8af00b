#!/usr/bin/env python3
"""normlab next to PyTorch: one GPU, one run, one table.

    python3 bench/compare_torch.py [--build DIR] [--normlab PATH] [--out DIR] [--only TEXT]
                                   [--repetitions N] [--warmup N] [--no-compile] [--check-all]
                                   [--require-torch] [--dry-run]

For every shape of SHAPES it times, on the same GPU and in the same run:
  - PyTorch eager (F.rms_norm, F.layer_norm, x + r then F.rms_norm), the hand-written eager
    RMSNorm computed in fp32, and torch.compile of the same functions;
  - every registered normlab kernel of that op, through `normlab tour --json` (new registry
    entries join without editing this script);
  - the copy roof, as torch's copy_ of a 512 MiB buffer (bytes read + written).
Timing follows normlab's harness: CUDA events around each repetition, warm-up first, the L2
flushed before every repetition by writing a buffer twice its size, the median reported. The
table compares the GPU time of the kernels: launch and Python overhead are left out for every
implementation. normlab launches from C++ behind the L2-flush memset, which already gives the CPU
a head start; a PyTorch call (eager dispatch, torch.compile's guards) can take tens of
microseconds of CPU time, during which the GPU would sit idle inside the timed region. So each
PyTorch repetition also queues a GPU busy-wait (torch.cuda._sleep, about 100 us) between the
flush and the start event, and the CPU has queued the whole call before the GPU reaches it.
Bandwidth uses normlab's bytes model for every implementation (activations read once and
written once, plus the parameters), so the columns compare times.

It then checks that normlab's output matches PyTorch's on the same inputs: `normlab check
--kernel NAME --dump DIR` writes the inputs and normlab's outputs, PyTorch runs its eager
function on those inputs, and every element must satisfy |normlab - torch| <= abs + rel * |torch|
with the dtype's tolerance from common/src/compare.cpp. The figure reported is the worst ratio
of error to allowance, max |normlab - torch| / (abs + rel * |torch|): at most 1 where it passes.

Writes torch_comparison.json and torch_comparison.md into --out (book/results), with the GPU,
driver, PyTorch version and date. Without PyTorch or a CUDA GPU it says so and exits 0
(1 with --require-torch). --dry-run prints the plan and needs neither.
"""
import argparse
import datetime
import json
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COPY_ROOF_BYTES = 512 << 20
# The GPU busy-wait queued before each timed PyTorch repetition: about 100 us at a ~2 GHz SM
# clock (longer at lower clocks, which only adds head start). It runs before the start event.
HEAD_START_CYCLES = 200_000
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}


@dataclass(frozen=True)
class Problem:
    op: str
    rows: int
    cols: int
    dtype: str
    note: str = ""

    def describe(self):
        return f"{self.op:<16} {self.dtype:<5} {self.rows} x {self.cols}"

    def bytes_moved(self):
        """normlab's bytes model (common/src/ops.cpp): activations and parameters once each."""
        activation = self.rows * self.cols * DTYPE_BYTES[self.dtype]
        parameters = self.cols * DTYPE_BYTES[self.dtype] * (2 if "layernorm" in self.op else 1)
        if self.op.endswith("_backward"):  # read x, dy; write dx; parameters and their grads
            statistics_ = self.rows * 4 * (2 if "layernorm" in self.op else 1)
            return 3 * activation + 2 * parameters + statistics_
        return (4 if self.op.startswith("add_") else 2) * activation + parameters


BF16_SHAPES = [(16384, 4096), (4096, 8192), (8192, 576), (32, 4096), (1, 4096)]
SHAPES = [
    Problem("rmsnorm", 2048, 8192, "fp32"),
    Problem("layernorm", 1024, 1024, "fp32"),
    Problem("layernorm", 16, 4194304, "fp32", "the last three dims of (16, 64, 256, 256)"),
    *[Problem(op, m, n, "bf16") for m, n in BF16_SHAPES
      for op in ("rmsnorm", "layernorm", "add_rmsnorm")],
    Problem("rmsnorm_backward", 16384, 4096, "bf16"),
]
# The PyTorch columns, by op: (column name, function name in torch_functions, compiled).
TORCH_COLUMNS = {
    "rmsnorm": [("torch eager", "rms_norm", False),
                ("torch eager, hand-written fp32", "rms_norm_by_hand", False),
                ("torch.compile", "rms_norm", True),
                ("torch.compile, hand-written fp32", "rms_norm_by_hand", True)],
    "layernorm": [("torch eager", "layer_norm", False), ("torch.compile", "layer_norm", True)],
    "add_rmsnorm": [("torch eager", "add_rms_norm", False),
                    ("torch.compile", "add_rms_norm", True)],
    "rmsnorm_backward": [("torch eager", "rms_norm", False), ("torch.compile", "rms_norm", True)],
}
EAGER_COLUMN = "torch eager"


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(REPO / "build" / "default"),
                        help="normlab build directory (default: build/default)")
    parser.add_argument("--normlab", help="the normlab program (default: BUILD/tools/normlab)")
    parser.add_argument("--out", default=str(REPO / "book" / "results"),
                        help="where torch_comparison.json and .md go (default: book/results)")
    parser.add_argument("--only", default="",
                        help="run only shapes whose description ('rmsnorm bf16 32 x 4096') "
                             "contains this text")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--check-all", action="store_true",
                        help="check every normlab kernel against PyTorch, not only the fastest")
    parser.add_argument("--require-torch", action="store_true",
                        help="fail (exit 1) instead of exiting 0 where PyTorch or a GPU is missing")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and exit")
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
        sys.exit("compare_torch: cannot read the tolerances from common/src/compare.cpp")
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
          + ", ".join(f"{d} abs {a:g} + rel {r:g}" for d, (a, r) in tolerance.items()))
    kernels = registered_kernels(args.normlab) if args.normlab.exists() else None
    if kernels is None:
        print(f"normlab not built at {args.normlab}: its kernels are listed once it is")
    print(f"copy roof: torch copy_ of {COPY_ROOF_BYTES >> 20} MiB; timing: {args.warmup} warm-up, "
          f"median of {args.repetitions}, L2 flushed and a {HEAD_START_CYCLES}-cycle GPU "
          "sleep queued before each torch repetition (GPU time only)")
    for problem in args.problems:
        columns = [name for name, _, compiled in TORCH_COLUMNS[problem.op]
                   if not (compiled and args.no_compile)]
        ours = [name for name, (op, dtypes) in (kernels or {}).items()
                if op == problem.op and problem.dtype in dtypes]
        listed = ", ".join(ours) or ("none registered for this op and dtype" if kernels else "?")
        print(f"  {problem.describe():<36} torch: {'; '.join(columns)} | normlab: {listed}")
    for m, n, dtype in tour_problems(args.problems):
        print("  " + shlex.join(tour_command(args.normlab, m, n, dtype, Path("DIR"))))
    print("  then per shape: " + shlex.join(check_command(args.normlab, args.problems[0],
                                                         "KERNEL", Path("DIR"))))


def tour_problems(problems):
    seen = []
    for p in problems:
        if not p.op.endswith("_backward") and (p.rows, p.cols, p.dtype) not in seen:
            seen.append((p.rows, p.cols, p.dtype))
    return seen


def tour_command(normlab, rows, cols, dtype, out_dir):
    return [str(normlab), "tour", "--rows", str(rows), "--cols", str(cols), "--dtype", dtype,
            "--json", str(out_dir / f"tour-{rows}x{cols}-{dtype}.json")]


def check_command(normlab, problem, kernel, dump_dir):
    command = [str(normlab), "check", "--op", problem.op, "--dtype", problem.dtype,
               "--rows", str(problem.rows), "--cols", str(problem.cols), "--kernel", kernel,
               "--dump", str(dump_dir)]
    return command + (["--bias"] if "layernorm" in problem.op else [])


def run_tours(args, problems, scratch):
    """{(rows, cols, dtype): tour JSON} for every forward shape; kernels that failed their own
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
            sys.exit(f"compare_torch: normlab tour exited {finished.returncode}:\n{finished.stderr}")
        tours[(rows, cols, dtype)] = json.loads(Path(command[-1]).read_text())
    return tours


# ---------------------------------------------------------------- PyTorch side


def torch_functions(F, torch):
    def rms_norm_by_hand(x, w, eps):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)

    def add_rms_norm(x, r, w, eps):
        h = x + r
        return F.rms_norm(h, (h.shape[-1],), w, eps), h

    return {
        "rms_norm": lambda x, w, eps: F.rms_norm(x, (x.shape[-1],), w, eps),
        "rms_norm_by_hand": rms_norm_by_hand,
        "layer_norm": lambda x, w, b, eps: F.layer_norm(x, (x.shape[-1],), w, b, eps),
        "add_rms_norm": add_rms_norm,
    }


class TorchBench:
    def __init__(self, torch, args):
        self.torch = torch
        self.args = args
        properties = torch.cuda.get_device_properties(0)
        l2_bytes = getattr(properties, "L2_cache_size", 0) or (64 << 20)
        self.flush_buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device="cuda")

    def median_ms(self, launch, flush=True, warmup=None, repetitions=None):
        torch = self.torch
        for _ in range(self.args.warmup if warmup is None else warmup):
            launch()
        torch.cuda.synchronize()
        count = self.args.repetitions if repetitions is None else repetitions
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(count)]
        for start, stop in events:
            if flush:
                self.flush_buffer.zero_()
            # Keep the GPU busy, outside the timed region, while the CPU queues launch() whole:
            # the events then time the kernels, not Python and dispatch overhead.
            torch.cuda._sleep(HEAD_START_CYCLES)
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


def torch_dtype(torch, name):
    aliases = {"f32": "fp32", "float": "fp32", "float32": "fp32", "f16": "fp16", "half": "fp16",
               "float16": "fp16", "bfloat16": "bf16"}
    name = aliases.get(name, name)
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[name]


def make_inputs(torch, problem):
    """Seeded inputs like normlab's: normal activations, weights near 1, a normal bias."""
    generator = torch.Generator(device="cuda").manual_seed(1)
    dtype = torch_dtype(torch, problem.dtype)
    shape = (problem.rows, problem.cols)
    normal = lambda size, scale=1.0: (scale * torch.randn(
        size, generator=generator, device="cuda")).to(dtype)
    x, r = normal(shape), normal(shape)
    w = (1 + 0.6 * (torch.rand(problem.cols, generator=generator, device="cuda") - 0.5)).to(dtype)
    return {"x": x, "r": r, "w": w, "b": normal(problem.cols, 0.5)}


def torch_launch(torch, fn, problem, inputs, eps):
    """A no-argument callable that runs one forward (or backward) of @p fn on @p inputs."""
    x, r, w, b = inputs["x"], inputs["r"], inputs["w"], inputs["b"]
    if problem.op == "rmsnorm":
        return lambda: fn(x, w, eps)
    if problem.op == "layernorm":
        return lambda: fn(x, w, b, eps)
    if problem.op == "add_rmsnorm":
        return lambda: fn(x, r, w, eps)
    # Backward: the forward runs once, outside the timed region; each repetition is one
    # backward pass through its graph (dx and dw).
    x_grad, w_grad = x.detach().requires_grad_(), w.detach().requires_grad_()
    y = fn(x_grad, w_grad, eps)
    dy = torch.randn_like(y)
    return lambda: torch.autograd.grad(y, (x_grad, w_grad), dy, retain_graph=True)


def time_torch(torch, bench, problem, functions, roof):
    inputs = make_inputs(torch, problem)
    torch._dynamo.reset()  # every shape compiles afresh, for this static shape only
    results = []
    for column, function_name, compiled in TORCH_COLUMNS[problem.op]:
        if compiled and bench.args.no_compile:
            continue
        fn = functions[function_name]
        entry = {"name": column}
        try:
            if compiled:
                fn = torch.compile(fn, dynamic=False)
            ms = bench.median_ms(torch_launch(torch, fn, problem, inputs, 1e-5))
            entry.update(bandwidth(problem, ms, roof))
        except Exception as error:  # a failed compile is a result to report, not a crash
            entry["note"] = f"failed: {str(error).splitlines()[0][:120]}"
        results.append(entry)
    return results


def bandwidth(problem, ms, roof):
    gbps = problem.bytes_moved() / (ms * 1e6)
    return {"median_ms": ms, "gbps": gbps, "percent_of_copy_roof": 100 * gbps / roof}


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
        tensors[name] = (matrix.reshape(-1) if name in ("weight", "bias") else matrix).to("cuda")
    return case, tensors


def compare(torch, got, want, tolerance):
    """Mismatches by |got - want| <= abs + rel * |want|, and the worst error as a fraction of
    that allowance (at most 1 where every element passes)."""
    got, want = got.double(), want.double()
    error = (got - want).abs()
    allowed = tolerance[0] + tolerance[1] * want.abs()
    bad = int((~(error <= allowed)).sum())  # NaN counts as bad
    return {"mismatches": bad, "checked": got.numel(), "max_abs_error": float(error.max()),
            "worst_error_to_tolerance": float((error / allowed).max())}


def check_against_torch(torch, args, problem, kernel, functions, tolerance):
    """Runs `normlab check --dump` for @p kernel, PyTorch's eager function on the dumped
    inputs, and compares every output."""
    with tempfile.TemporaryDirectory() as dump_dir:
        command = check_command(args.normlab, problem, kernel, Path(dump_dir))
        finished = subprocess.run(command, capture_output=True, text=True)
        if not (Path(dump_dir) / "case.json").exists():
            return {"kernel": kernel, "passed": False,
                    "verdict": f"not checked: normlab check exited {finished.returncode}",
                    "output": (finished.stdout + finished.stderr)[-2000:]}
        case, t = load_dump(torch, Path(dump_dir))
        eps = float(case["eps"])
        if problem.op == "rmsnorm":
            wanted = {"y": functions["rms_norm"](t["x"], t["weight"], eps)}
        elif problem.op == "layernorm":
            wanted = {"y": functions["layer_norm"](t["x"], t["weight"], t["bias"], eps)}
        else:
            y, h = functions["add_rms_norm"](t["x"], t["residual"], t["weight"], eps)
            wanted = {"y": y, "residual_out": h}
        tol = tolerance[problem.dtype]
        reports = {name: compare(torch, t[name], wanted[name], tol) for name in wanted}
    passed = all(r["mismatches"] == 0 for r in reports.values()) and finished.returncode == 0
    worst = max(r["worst_error_to_tolerance"] for r in reports.values())
    if passed:
        verdict = f"yes ({kernel}, worst error {worst:.2g} of tolerance)"
    elif finished.returncode != 0:
        verdict = f"NO: {kernel} fails normlab's own float64 check"
    else:
        bad = sum(r["mismatches"] for r in reports.values())
        verdict = f"NO: {kernel}, {bad} elements outside abs {tol[0]:g} + rel {tol[1]:g}"
    return {"kernel": kernel, "passed": passed, "verdict": verdict, "outputs": reports,
            "tolerance": {"abs": tol[0], "rel": tol[1]}}


# ---------------------------------------------------------------- the run


def measure(torch, args, tolerance):
    import torch._dynamo
    import torch.nn.functional as F

    dynamo_config = torch._dynamo.config
    for limit in ("recompile_limit", "cache_size_limit"):
        if hasattr(dynamo_config, limit):
            setattr(dynamo_config, limit, 64)
    with tempfile.TemporaryDirectory() as scratch:
        tours = run_tours(args, args.problems, Path(scratch))
    bench = TorchBench(torch, args)
    roof = bench.copy_roof_gbps()
    functions = torch_functions(F, torch)
    shapes = []
    for problem in args.problems:
        print(f"timing {problem.describe()}", flush=True)
        implementations = time_torch(torch, bench, problem, functions, roof)
        ours = normlab_results(problem, tours, roof)
        best = next((k for k in ours if k["passed"]), None)
        shape = {"op": problem.op, "rows": problem.rows, "cols": problem.cols,
                 "dtype": problem.dtype, "note": problem.note, "bytes": problem.bytes_moved(),
                 "implementations": implementations, "normlab_kernels": ours}
        if best is None:
            why = "no normlab kernel for this op yet" if not ours else "every normlab kernel failed"
            implementations.append({"name": "normlab", "note": why})
        else:
            implementations.append({"name": "normlab", **best})
            by_name = {i["name"]: i for i in implementations if i.get("median_ms")}
            compiled = [i["median_ms"] for i in implementations
                        if i["name"].startswith("torch.compile") and i.get("median_ms")]
            if EAGER_COLUMN in by_name:
                shape["speedup_vs_eager"] = by_name[EAGER_COLUMN]["median_ms"] / best["median_ms"]
            if compiled:
                shape["speedup_vs_compile"] = min(compiled) / best["median_ms"]
            torch.cuda.empty_cache()
            checked = [k["kernel"] for k in ours if k["passed"]] if args.check_all else [best["kernel"]]
            shape["checks"] = [check_against_torch(torch, args, problem, k, functions, tolerance)
                               for k in checked]
            shape["check"] = shape["checks"][0] if len(checked) == 1 else {
                "passed": all(c["passed"] for c in shape["checks"]),
                "verdict": "; ".join(c["verdict"] for c in shape["checks"])}
        shapes.append(shape)
    return roof, tours, shapes


def driver_version():
    try:
        query = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True, check=True)
        return query.stdout.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def cell(implementation):
    if implementation.get("gbps") is None:
        return implementation.get("note", "not run")
    kernel = f" `{implementation['kernel']}`" if implementation.get("kernel") else ""
    return f"{implementation['gbps']:.0f} ({implementation['percent_of_copy_roof']:.1f}%){kernel}"


def markdown_table(report):
    names = []
    for shape in report["shapes"]:
        names += [i["name"] for i in shape["implementations"] if i["name"] not in names]
    lines = [f"# normlab and PyTorch on {report['gpu']}", "",
             f"{report['date']}, driver {report['driver']}, PyTorch {report['torch_version']}, "
             f"copy roof {report['copy_roof_gbps']:.0f} GB/s (torch copy_ of 512 MiB). "
             "Cells: GB/s by normlab's bytes model (% of the copy roof), from the GPU time of "
             "the kernels (launch and Python overhead left out). Matches: every element within "
             "abs + rel * |torch| of PyTorch eager; the worst error is given as a fraction of "
             "that allowance (at most 1 passes).", "",
             "| op | shape | dtype | " + " | ".join(names) + " | x eager | x compile | matches |",
             "|---|---|---|" + "---|" * len(names) + "---|---|---|"]
    for shape in report["shapes"]:
        by_name = {i["name"]: i for i in shape["implementations"]}
        speedups = [f"{shape[k]:.2f}" if shape.get(k) else "-"
                    for k in ("speedup_vs_eager", "speedup_vs_compile")]
        verdict = shape.get("check", {}).get("verdict", "-")
        lines.append(f"| {shape['op']} | {shape['rows']} x {shape['cols']} | {shape['dtype']} | "
                     + " | ".join(cell(by_name[n]) if n in by_name else "-" for n in names)
                     + f" | {' | '.join(speedups)} | {verdict} |")
    return "\n".join(lines) + "\n"


def main(argv):
    args = parse_arguments(argv)
    tolerance = tolerances()
    if args.dry_run:
        print_plan(args, tolerance)
        return 0
    try:
        import torch
    except ImportError:
        print("compare_torch: PyTorch is not installed here; nothing to compare "
              "(pip install torch on a machine with a CUDA GPU).")
        return 1 if args.require_torch else 0
    if not torch.cuda.is_available():
        print("compare_torch: PyTorch sees no CUDA GPU; nothing to compare.")
        return 1 if args.require_torch else 0
    if not args.normlab.exists():
        sys.exit(f"compare_torch: no normlab program at {args.normlab}; build it first: "
                 f"cmake --build {args.build} --target normlab")

    roof, tours, shapes = measure(torch, args, tolerance)
    report = {
        "gpu": torch.cuda.get_device_name(0), "driver": driver_version(),
        "torch_version": torch.__version__, "cuda_version": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join(["python3", "bench/compare_torch.py", *argv]),
        "copy_roof_gbps": roof,
        "normlab_copy_roof_gbps": {f"{m}x{n}-{d}": t.get("copy_roof_gbps")
                                   for (m, n, d), t in tours.items()},
        "timing": {"warmup": args.warmup, "repetitions": args.repetitions,
                   "statistic": "median", "l2_flush": "2x L2 written before each repetition",
                   "head_start_cycles": HEAD_START_CYCLES},
        "tolerances": {d: {"abs": a, "rel": r} for d, (a, r) in tolerance.items()},
        "shapes": shapes,
    }
    table = markdown_table(report)
    print(table)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "torch_comparison.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "torch_comparison.md").write_text(table)
    print(f"wrote {out / 'torch_comparison.json'} and {out / 'torch_comparison.md'}")
    failed = [s for s in shapes if s.get("checks") and not s["check"].get("passed")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
