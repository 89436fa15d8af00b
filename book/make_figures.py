#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Makes the book's tables and figures from the committed benchmark results.

    make_figures.py RESULTS_DIR OUT_DIR
    make_figures.py --self-test

RESULTS_DIR (book/results) may hold, all optional:
  tour-<rows>x<cols>-<dtype>.json  `normlab tour --json` output (common/src/program.cpp)
  run.json                         {"gpu", "driver", "date", "command"} of the tour runs
  bench*.json                      normlab_bench --benchmark_out_format=json output, one file a
                                   run (e.g. bench-fp32.json, bench-bf16.json)
  ch12.json                        `ch12_across_gpus --json` output; its "overlap" entries'
                                   timelines (each bar: rank, stream, stage, start_us, end_us)

OUT_DIR receives, whatever RESULTS_DIR holds:
  chNN_results.html                that chapter's kernels (NN: each chapter of course.json); or a
                                   line saying nothing is measured yet
  performance_results.html         every measured shape: a bar chart and a table each
  ch03_block_sizes.html            chapters 02 and 03 at every block size (block_sweep/ entries)
  ch12_timeline.html               rank 0's two streams in chapter 12's overlapped step (the
                                   first entry with the most tokens), or a line saying none is
                                   committed
  ladder_<op>_<rows>x<cols>[_<dtype>].svg  % of copy roof per kernel (no suffix for fp32); the
                                   headline charts in HEADLINE_CHARTS are always written, as a
                                   placeholder when their shape has no results.
The HTML files are fragments for Doxygen's \\htmlinclude; the SVG files are for \\image.
Python standard library only.
"""
import html
import json
import math
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

# The chapters of the course, in order, from the manifest at the repository root.
CHAPTERS = [int(chapter["number"]) for chapter in
            json.loads((Path(__file__).resolve().parents[1] / "course.json").read_text())["chapters"]]
# Charts the pages show with \image: always written, so that the book renders before any
# results are committed. (op, rows, cols, dtype)
HEADLINE_CHARTS = [("rmsnorm", 2048, 8192, "fp32")]
PAGES = Path(__file__).resolve().parent / "pages"
TIME_UNITS_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
# Longest first: "add_rmsnorm" must not be read as "rmsnorm".
OPS_BY_NAME = ["rmsnorm_backward", "layernorm_backward", "add_rmsnorm", "add_layernorm",
               "rmsnorm", "layernorm", "copy"]
CHAPTER_COLOURS = ["#7f7f7f", "#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#17becf",
                   "#1f77b4", "#9467bd", "#e377c2", "#8c564b", "#393b79", "#637939"]


@dataclass
class Row:
    """One kernel on one problem."""
    kernel: str
    chapter: int
    op: str
    rows: int
    cols: int
    dtype: str
    passed: bool = True
    error: str = ""
    time_us: Optional[float] = None
    gbps: Optional[float] = None
    percent_of_roof: Optional[float] = None
    vs_eager: Optional[float] = None
    vs_previous: Optional[float] = None

    @property
    def problem(self):
        return (self.op, self.rows, self.cols, self.dtype)


@dataclass
class Run:
    """Results measured in one session on one GPU."""
    source: str  # how they were measured, for captions
    gpu: str
    date: str
    driver: str = ""
    copy_roof_gbps: Optional[float] = None
    rows: list = field(default_factory=list)

    def caption(self):
        parts = [f"Measured with {self.source} on {self.gpu}", self.date]
        if self.driver:
            parts.append(f"driver {self.driver}")
        if self.copy_roof_gbps:
            parts.append(f"copy roof {self.copy_roof_gbps:.0f} GB/s")
        return ", ".join(parts)


def load_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        sys.exit(f"make_figures: cannot read {path}: {error}")


def chapter_of(kernel_name):
    match = re.match(r"ch(\d\d)", kernel_name)
    return int(match.group(1)) if match else -1


def op_from_name(kernel_name):
    for op in OPS_BY_NAME:
        if op in kernel_name:
            return op
    return "unknown"


def short_date(text):
    return text[:10] if re.match(r"\d{4}-\d\d-\d\d", text or "") else (text or "date not recorded")


def read_tours(results):
    """Every tour-*.json, as one Run described by run.json."""
    files = sorted(results.glob("tour-*.json"))
    if not files:
        return None
    info = load_json(results / "run.json") if (results / "run.json").exists() else {}
    run = Run(source="<code>normlab tour</code>", gpu=info.get("gpu", ""),
              date=short_date(info.get("date", "")), driver=info.get("driver", ""))
    for path in files:
        tour = load_json(path)
        problem = tour["problem"]
        run.gpu = run.gpu or tour.get("gpu", "unknown GPU")
        run.copy_roof_gbps = run.copy_roof_gbps or tour.get("copy_roof_gbps")
        for k in tour["kernels"]:
            passed = bool(k["passed"])
            run.rows.append(Row(
                kernel=k["name"], chapter=int(k["chapter"]), op=k["op"], rows=int(problem["rows"]),
                cols=int(problem["cols"]), dtype=problem["dtype"], passed=passed,
                error="" if passed else "failed verification",
                time_us=k["median_ms"] * 1e3 if passed else None,
                gbps=k["gbps"] if passed else None,
                percent_of_roof=k["percent_of_copy_roof"] if passed else None,
                vs_eager=k.get("speedup_vs_eager"), vs_previous=k.get("speedup_vs_previous")))
    return run


def read_benches(results, known_ops, prefix=""):
    """Every bench*.json, each as a Run (see read_bench); runs with no matching entry are left out."""
    runs = [read_bench(path, known_ops, prefix) for path in sorted(results.glob("bench*.json"))]
    return [run for run in runs if run.rows]


def read_bench(path, known_ops, prefix=""):
    """A Google Benchmark JSON file as a Run. Names are <prefix><kernel>/<dtype>/<rows>x<cols>[/...];
    an op comes from the tour results when they name the kernel, else from the kernel's name."""
    data = load_json(path)
    context = data.get("context", {})
    roof = context.get("copy_roof_gbps")
    run = Run(source="<code>normlab_bench</code>", gpu=context.get("gpu", "unknown GPU"),
              date=short_date(context.get("date", "")),
              copy_roof_gbps=float(roof) if roof else None)
    grouped = {}  # base name -> benchmark entries, in file order
    for entry in data.get("benchmarks", []):
        name = entry.get("run_name", entry["name"])
        if not name.startswith(prefix):
            continue
        base = "/".join(name[len(prefix):].split("/")[:3])
        grouped.setdefault(base, []).append(entry)
    for base, entries in grouped.items():
        parts = base.split("/")
        shape = re.fullmatch(r"(\d+)x(\d+)", parts[2]) if len(parts) == 3 else None
        if not shape:
            continue
        kernel = parts[0]
        row = Row(kernel=kernel, chapter=chapter_of(kernel),
                  op=known_ops.get(kernel) or op_from_name(kernel),
                  rows=int(shape.group(1)), cols=int(shape.group(2)), dtype=parts[1])
        failed = [e for e in entries if e.get("error_occurred") or e.get("skipped")]
        if failed:
            message = failed[0].get("error_message") or failed[0].get("skip_message") or "error"
            row.passed = False
            row.error = message.split("\n")[0]
        else:
            medians = [e for e in entries if e.get("aggregate_name") == "median"]
            chosen = medians or [e for e in entries if e.get("run_type", "iteration") == "iteration"]
            scale = TIME_UNITS_TO_US[chosen[0].get("time_unit", "ns")]
            row.time_us = statistics.median(e["real_time"] * scale for e in chosen)
            row.gbps = statistics.median(e["GB/s"] for e in chosen)
            row.percent_of_roof = statistics.median(e["pct_copy_roof"] for e in chosen)
        run.rows.append(row)
    add_speedups(run.rows)
    return run


def add_speedups(rows):
    """Speed-ups as the tour computes them: over the chapter 00 kernel of the same op and
    problem (the eager baseline), and over the last kernel of an earlier chapter before it."""
    for i, row in enumerate(rows):
        if not row.passed or row.op == "copy":
            continue
        for earlier in rows[:i]:
            if earlier.problem != row.problem or not earlier.passed:
                continue
            if earlier.chapter == 0 and row.vs_eager is None:
                row.vs_eager = earlier.time_us / row.time_us
            if earlier.chapter < row.chapter:
                row.vs_previous = earlier.time_us / row.time_us


# ---------------------------------------------------------------- HTML


def number(value, digits=1, suffix=""):
    return "&mdash;" if value is None else f"{value:.{digits}f}{suffix}"


def shape_text(row):
    return f"{row.rows}&thinsp;&times;&thinsp;{row.cols}"


def results_table(run, rows, caption):
    head = ("<tr><th>ch</th><th>kernel</th><th>op</th><th>shape</th><th>dtype</th>"
            "<th>time (&micro;s)</th><th>GB/s</th><th>% of copy roof</th>"
            "<th>&times; eager</th><th>&times; previous chapter</th></tr>")
    lines = [f'<table class="doxtable normlab-results"><caption>{caption}. {run.caption()}.</caption>',
             head]
    for row in rows:
        if row.passed:
            cells = [number(row.time_us), number(row.gbps), number(row.percent_of_roof, 1, "%"),
                     number(row.vs_eager, 2), number(row.vs_previous, 2)]
        else:
            cells = [f'<td colspan="5">{html.escape(row.error)}</td>']
        cells = [c if c.startswith("<td") else f"<td>{c}</td>" for c in cells]
        lines.append(f"<tr><td>{row.chapter:02d}</td><td><code>{html.escape(row.kernel)}</code></td>"
                     f"<td>{row.op}</td><td>{shape_text(row)}</td><td>{row.dtype}</td>"
                     + "".join(cells) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def no_results(what):
    return (f'<p class="normlab-no-results">No measured results are committed for {what} yet '
            '(how to measure and commit them: <a href="performance.html">Performance</a>).</p>')


def chapter_page(chapter, runs):
    tables = []
    for run in runs:
        rows = [r for r in run.rows if r.chapter == chapter]
        if rows:
            tables.append(results_table(run, rows, f"Chapter {chapter:02d}"))
    return "\n".join(tables) if tables else no_results(f"chapter {chapter:02d}")


def problems_in(runs):
    """Every (op, rows, cols, dtype) with results, in first-seen order; the first run that has
    a problem is the one its chart is drawn from."""
    seen = {}
    for run in runs:
        for row in run.rows:
            if row.op not in ("copy", "unknown"):
                seen.setdefault(row.problem, run)
    return seen


def chart_name(problem):
    op, rows, cols, dtype = problem
    return f"ladder_{op}_{rows}x{cols}" + ("" if dtype == "fp32" else f"_{dtype}") + ".svg"


def performance_page(runs):
    problems = problems_in(runs)
    if not problems:
        return no_results("any kernel")
    parts = []
    for problem, run in problems.items():
        rows = [r for r in run.rows if r.problem == problem]
        op, m, n, dtype = problem
        parts.append(f"<h2>{op}, {m}&thinsp;&times;&thinsp;{n} {dtype}</h2>")
        parts.append(f'<div class="normlab-chart">{bar_chart(problem, run)}</div>')
        parts.append(results_table(run, rows, f"{op} {m} &times; {n} {dtype}"))
    return "\n".join(parts)


# ---------------------------------------------------------------- SVG

CHART_WIDTH = 760
LABEL_WIDTH = 250
BAR_HEIGHT = 18
ROW_HEIGHT = 24
TOP = 58


def svg_text(x, y, text, size=12, anchor="start", weight="normal", fill="#222"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{html.escape(text)}</text>')


def svg_document(height, title, subtitle, body):
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" height="{height}" '
        f'viewBox="0 0 {CHART_WIDTH} {height}" font-family="sans-serif">',
        f"<title>{html.escape(title)}</title>",
        '<rect width="100%" height="100%" fill="white"/>',
        svg_text(10, 20, title, size=14, weight="bold"),
        svg_text(10, 38, subtitle, size=11, fill="#555"),
        *body, "</svg>"])


def chart_title(problem):
    op, rows, cols, dtype = problem
    return f"{op} {rows} x {cols} {dtype}: % of the copy roof"


def bar_chart(problem, run, title=None):
    """% of the copy roof per kernel of @p problem; with op None, every op of that shape."""
    rows = [r for r in run.rows
            if r.problem == problem or (problem[0] is None and r.problem[1:] == problem[1:])]
    scale_max = max([100.0] + [r.percent_of_roof for r in rows if r.passed])
    plot_width = CHART_WIDTH - LABEL_WIDTH - 70
    x_of = lambda percent: LABEL_WIDTH + plot_width * percent / scale_max
    height = TOP + ROW_HEIGHT * len(rows) + 30
    body = []
    for i, row in enumerate(rows):
        y = TOP + ROW_HEIGHT * i
        body.append(svg_text(LABEL_WIDTH - 8, y + 13, row.kernel, size=11, anchor="end"))
        if row.passed:
            colour = CHAPTER_COLOURS[row.chapter % len(CHAPTER_COLOURS)]
            width = x_of(row.percent_of_roof) - LABEL_WIDTH
            body.append(f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" '
                        f'height="{BAR_HEIGHT}" fill="{colour}"/>')
            body.append(svg_text(LABEL_WIDTH + width + 4, y + 13,
                                 f"{row.percent_of_roof:.1f}%", size=11))
        else:
            body.append(svg_text(LABEL_WIDTH + 4, y + 13, row.error, size=11, fill="#b00"))
    bottom = TOP + ROW_HEIGHT * len(rows)
    for percent in (0, 25, 50, 75, 100):
        x = x_of(percent)
        dash = "" if percent in (0, 100) else ' stroke-dasharray="3,3"'
        body.append(f'<line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{bottom}" '
                    f'stroke="#999"{dash}/>')
        body.append(svg_text(x, bottom + 16, f"{percent}%", size=10, anchor="middle", fill="#555"))
    body.append(svg_text(x_of(100), TOP - 10, "copy roof", size=10, anchor="middle", fill="#555"))
    return svg_document(height, title or chart_title(problem), run_subtitle(run), body)


def run_subtitle(run):
    roof = f", copy roof {run.copy_roof_gbps:.0f} GB/s" if run.copy_roof_gbps else ""
    return f"{run.gpu}, {run.date}{roof}"


def placeholder_chart(problem, title=None):
    body = [svg_text(10, TOP + 10, "No measured results are committed for this shape yet.",
                     fill="#555")]
    return svg_document(TOP + 30, title or chart_title(problem), "no GPU run committed", body)


# The ladder every chapter page shows: each kernel of the tour on the book's reference problem,
# whatever its op, from the tour's results.
LADDER_ALL = ((None, 2048, 8192, "fp32"), "ladder_all_2048x8192.svg",
              "Every chapter's kernels, 2048 x 8192 fp32: % of the copy roof")


def ladder_all(tours):
    problem, name, title = LADDER_ALL
    if tours and any(r.problem[1:] == problem[1:] for r in tours.rows):
        return name, bar_chart(problem, tours, title)
    return name, placeholder_chart(problem, title)


def read_block_sweep(results):
    """The newest bench*.json's block_sweep/<kernel>@<threads>/<dtype>/<rows>x<cols> entries, as
    {(rows, cols, dtype): {threads: {kernel: Row}}}, with the Run they come from."""
    runs = read_benches(results, {}, prefix="block_sweep/")
    if not runs:
        return None, {}
    run = max(runs, key=lambda r: r.date)
    table = {}
    for row in run.rows:
        kernel, threads = row.kernel.split("@")
        table.setdefault((row.rows, row.cols, row.dtype), {}).setdefault(int(threads), {})[kernel] = row
    return run, table


def block_sweep_page(results):
    run, table = read_block_sweep(results)
    if not table:
        return no_results("the block-size sweep")
    kernels = sorted({k for by_threads in table.values() for rows in by_threads.values() for k in rows})
    lines = [f'<table class="doxtable normlab-results"><caption>Chapters 02 and 03 at every '
             f'block size: time in &micro;s and % of the copy roof. {run.caption()}.</caption>',
             "<tr><th>shape</th><th>threads</th>"
             + "".join(f"<th><code>{html.escape(k)}</code></th>" for k in kernels) + "</tr>"]
    for (rows, cols, dtype), by_threads in table.items():
        for threads, by_kernel in sorted(by_threads.items()):
            cells = []
            for k in kernels:
                row = by_kernel.get(k)
                if row is None:
                    cells.append("&mdash;")
                elif not row.passed:
                    cells.append(html.escape(row.error))
                else:
                    cells.append(f"{number(row.time_us)} ({number(row.percent_of_roof, 1, '%')})")
            lines.append(f"<tr><td>{rows}&thinsp;&times;&thinsp;{cols} {dtype}</td><td>{threads}</td>"
                         + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


# ---------------------------------------------------------------- chapter 05 on shifted rows


def shifted_page(results):
    """Chapter 05's two kernels on rows shifted to a large mean: every
    ch05-shifted/<kernel>-mean<M>.json (`normlab check --json` output) as one table row, with the
    GPU and date of ch05-shifted/run.json."""
    folder = results / "ch05-shifted"
    files = sorted(folder.glob("*-mean*.json")) if folder.is_dir() else []
    if not files:
        return no_results("chapter 05 on shifted rows")
    info = load_json(folder / "run.json") if (folder / "run.json").exists() else {}
    lines = [f'<table class="doxtable normlab-results"><caption>Chapter 05 on rows of spread 1 '
             f'shifted to a large mean (<code>normlab check --distribution shifted</code>), '
             f'{html.escape(info.get("gpu", "GPU not recorded"))}, '
             f'{short_date(info.get("date", ""))}.</caption>',
             "<tr><th>kernel</th><th>row mean</th><th>result</th><th>largest |error| of y</th>"
             "<th>tolerance</th><th>mismatching values of y</th></tr>"]
    for path in files:
        check = load_json(path)
        mean = re.search(r"-mean([^.]+(?:\.\d+)?)\.json$", path.name).group(1)
        y = next((o for o in check.get("outputs", []) if o.get("name") == "y"), {})
        tolerance = check.get("tolerance", {})
        lines.append(f"<tr><td><code>{html.escape(check['kernel'])}</code></td><td>{html.escape(mean)}</td>"
                     f"<td>{html.escape(check['result'])}</td>"
                     f"<td>{number(y.get('max_abs_error'), 3) if y else '&mdash;'}</td>"
                     f"<td>{tolerance.get('abs', '?')} + {tolerance.get('rel', '?')} &middot; |want|</td>"
                     f"<td>{y.get('mismatches', '&mdash;')} of {y.get('checked', '&mdash;')}</td></tr>")
    lines.append("</table>")
    return "\n".join(lines)


# ---------------------------------------------------------------- chapter 12's overlapped step

CH12_RESULTS = "ch12.json"
# The two streams of a rank, top to bottom, and the colours of the stages the program names
# (draw_ideas.py's for the same roles); a stage not listed here is drawn grey.
TIMELINE_LANES = ("compute", "comm")
STAGE_COLOURS = {"moments": "#fdd0a2", "GEMM": "#d9d9d9", "all-reduce": "#dadaeb",
                 "1/RMS": "#c7e9c0", "scale rows": "#fdae6b"}
LANE_LABEL_WIDTH = 110
LANE_HEIGHT = 34


def tick_step(span):
    """A round step (1, 2 or 5 times a power of ten) that cuts @p span into 4 to 10 pieces."""
    step = 10.0 ** math.floor(math.log10(span))
    for factor in (0.1, 0.2, 0.5, 1.0, 2.0, 5.0):
        if span / (step * factor) <= 10:
            return step * factor
    return step * 10


def overlap_timeline(data, source):
    """Rank 0's bars of the first "overlap" entry with the most tokens, one lane a stream, as
    an SVG document; None when @p data has no overlap entry."""
    entries = data.get("overlap") or []
    if not entries:
        return None
    entry = max(entries, key=lambda e: e["tokens"])  # max keeps the first of equals
    bars = [b for b in entry["timeline"] if b["rank"] == 0]
    shape = f"{entry['tokens']} tokens, {entry['k']} -> {entry['n']}, {entry['ranks']} GPUs"
    if not bars:
        sys.exit(f"make_figures: {source}: the overlap entry of {shape} has no bars of rank 0")
    for bar in bars:
        if bar["stream"] not in TIMELINE_LANES:
            sys.exit(f"make_figures: {source}: stream {bar['stream']!r} is none of "
                     f"{', '.join(TIMELINE_LANES)}")
    start = min(b["start_us"] for b in bars)
    span = max(b["end_us"] for b in bars) - start
    plot_width = CHART_WIDTH - LANE_LABEL_WIDTH - 30
    x_of = lambda us: LANE_LABEL_WIDTH + plot_width * (us - start) / span
    body = []
    for lane, stream in enumerate(TIMELINE_LANES):
        y = TOP + lane * (LANE_HEIGHT + 10)
        body.append(svg_text(LANE_LABEL_WIDTH - 8, y + 21, f"{stream} stream", size=11,
                             anchor="end"))
        for bar in (b for b in bars if b["stream"] == stream):
            x, width = x_of(bar["start_us"]), x_of(bar["end_us"]) - x_of(bar["start_us"])
            colour = STAGE_COLOURS.get(bar["stage"], "#bbb")
            body.append(f'<rect x="{x:.1f}" y="{y}" width="{max(width, 1.0):.1f}" '
                        f'height="{LANE_HEIGHT}" fill="{colour}" stroke="#222" '
                        'stroke-width="0.5"/>')
            if width > 7 * len(bar["stage"]) + 6:
                body.append(svg_text(x + width / 2, y + 21, bar["stage"], size=11,
                                     anchor="middle"))
    axis_y = TOP + len(TIMELINE_LANES) * (LANE_HEIGHT + 10)
    step = tick_step(span)
    tick = 0.0
    while tick <= span * (1 + 1e-9):
        x = x_of(start + tick)
        body.append(f'<line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{axis_y}" '
                    'stroke="#999" stroke-dasharray="3,3"/>')
        body.append(svg_text(x, axis_y + 14, f"{tick:g}", size=10, anchor="middle", fill="#555"))
        tick += step
    body.append(svg_text(LANE_LABEL_WIDTH, axis_y + 30, "µs from the step's first stage; "
                         "each bar's stage and time:", size=11, fill="#555"))
    y = axis_y + 48
    for bar in sorted(bars, key=lambda b: b["start_us"]):
        body.append(f'<rect x="{LANE_LABEL_WIDTH}" y="{y - 10}" width="12" height="12" '
                    f'fill="{STAGE_COLOURS.get(bar["stage"], "#bbb")}" stroke="#222" '
                    'stroke-width="0.5"/>')
        body.append(svg_text(LANE_LABEL_WIDTH + 18, y, f"{bar['stage']} ({bar['stream']}): "
                             f"{bar['start_us'] - start:.1f} to {bar['end_us'] - start:.1f} µs, "
                             f"{bar['end_us'] - bar['start_us']:.1f} µs", size=11))
        y += 16
    where = ", ".join(str(data[key]) for key in ("gpu", "date") if data.get(key))
    subtitle = f"{where or 'GPU not recorded'}; rank 0's bars from {source}"
    return svg_document(y + 4, f"Chapter 12, the overlapped step on rank 0: {shape}", subtitle,
                        body)


def timeline_page(results):
    """Chapter 12's measured timeline as a fragment with the SVG inline, or a line saying it is
    not measured yet."""
    path = results / CH12_RESULTS
    chart = overlap_timeline(load_json(path), CH12_RESULTS) if path.exists() else None
    if chart is None:
        return no_results("chapter 12's overlapped step")
    return f'<div class="normlab-chart">{chart}</div>'


# ---------------------------------------------------------------- sample output


# Text samples the pages show where a student first meets a tool: (file in RESULTS_DIR, what
# it is, the command that makes it).
SAMPLES = {"tour_sample.html": ("tour-2048x8192-fp32.txt", "the tour",
                                "normlab tour > book/results/tour-2048x8192-fp32.txt"),
           "scorecard_sample.html": ("scorecard-ex04.txt", "a grading scorecard",
                                     "scripts/grade 04 > book/results/scorecard-ex04.txt")}


def sample_page(results, name):
    """The committed text output of a tool, verbatim, or a note saying how to commit it."""
    file_name, what, command = SAMPLES[name]
    path = results / file_name
    if not path.exists():
        return (f'<p class="normlab-no-results">No sample of {what} is committed yet '
                f"(<code>{html.escape(command)}</code> on a GPU makes one).</p>")
    return f'<pre class="fragment">{html.escape(path.read_text())}</pre>'


# ---------------------------------------------------------------- main


def has_page(chapter, pages):
    """Whether @p pages holds a page for @p chapter: only those get a results fragment."""
    return any(pages.glob(f"ch{chapter:02d}-*.md"))


def make(results, out, pages=PAGES):
    out.mkdir(parents=True, exist_ok=True)
    tours = read_tours(results)
    known_ops = {r.kernel: r.op for r in tours.rows} if tours else {}
    runs = ([tours] if tours else []) + read_benches(results, known_ops)
    for chapter in [c for c in CHAPTERS if has_page(c, pages)]:
        (out / f"ch{chapter:02d}_results.html").write_text(chapter_page(chapter, runs) + "\n")
    (out / "performance_results.html").write_text(performance_page(runs) + "\n")
    (out / "ch03_block_sizes.html").write_text(block_sweep_page(results) + "\n")
    (out / "ch05_shifted.html").write_text(shifted_page(results) + "\n")
    (out / "ch12_timeline.html").write_text(timeline_page(results) + "\n")
    for name in SAMPLES:
        (out / name).write_text(sample_page(results, name) + "\n")
    problems = problems_in(runs)
    for problem, run in problems.items():
        (out / chart_name(problem)).write_text(bar_chart(problem, run) + "\n")
    for problem in HEADLINE_CHARTS:
        if problem not in problems:
            (out / chart_name(problem)).write_text(placeholder_chart(problem) + "\n")
    name, chart = ladder_all(tours)
    (out / name).write_text(chart + "\n")


def self_test():
    """Runs make() on tiny made-up results and checks what lands where. The numbers are
    invented for the test and never leave the temporary directory."""
    with tempfile.TemporaryDirectory() as scratch:
        results, out = Path(scratch, "results"), Path(scratch, "out")
        results.mkdir()
        make(results, out)
        assert "No measured results" in (out / "ch04_results.html").read_text()
        pageless = Path(scratch, "pageless")
        make(results, pageless, pages=Path(scratch, "no pages"))
        assert not any(pageless.glob("ch*_results.html")), "a fragment for a chapter without a page"
        assert "No measured results" in (out / "ch12_timeline.html").read_text()
        assert "No measured results" in (out / "ladder_rmsnorm_2048x8192.svg").read_text()
        assert "No measured results" in (out / "ladder_all_2048x8192.svg").read_text()
        assert "No measured results" in (out / "ch03_block_sizes.html").read_text()
        assert "No measured results" in (out / "ch05_shifted.html").read_text()
        assert "No sample of the tour" in (out / "tour_sample.html").read_text()
        (results / "scorecard-ex04.txt").write_text("ex04: 3 of 4 <cases> passed\n")
        make(results, out)
        assert "ex04: 3 of 4 &lt;cases&gt; passed" in (out / "scorecard_sample.html").read_text()
        (results / "scorecard-ex04.txt").unlink()
        shifted = results / "ch05-shifted"
        shifted.mkdir()
        (shifted / "run.json").write_text(json.dumps({"gpu": "Shift GPU", "date": "2000-01-05"}))
        (shifted / "ch05_layernorm_sum_of_squares-mean1e4.json").write_text(json.dumps({
            "result": "FAIL", "kernel": "ch05_layernorm_sum_of_squares", "case": "c",
            "tolerance": {"abs": 1e-4, "rel": 1e-4},
            "outputs": [{"name": "y", "checked": 10, "mismatches": 7, "max_abs_error": 2.5}]}))
        make(results, out)
        table = (out / "ch05_shifted.html").read_text()
        assert "Shift GPU" in table and "<td>1e4</td><td>FAIL</td><td>2.500</td>" in table, table
        assert "<td>7 of 10</td>" in table, table
        (shifted / "ch05_layernorm_sum_of_squares-mean1e4.json").unlink()
        (shifted / "run.json").unlink()
        shifted.rmdir()

        bar = lambda rank, stream, stage, start, end: dict(rank=rank, stream=stream, stage=stage,
                                                          start_us=start, end_us=end)
        step = lambda tokens, bars: dict(tokens=tokens, k=64, n=32, ranks=2, timeline=bars)
        (results / "ch12.json").write_text(json.dumps({"gpu": "Pair GPU", "overlap": [
            step(16, [bar(0, "compute", "few tokens", 0.0, 5.0)]),
            step(512, [bar(1, "compute", "rank 1 only", 100.0, 160.0),
                       bar(0, "compute", "moments", 100.0, 110.0),
                       bar(0, "compute", "GEMM", 110.0, 150.0),
                       bar(0, "comm", "all-reduce", 110.0, 122.5),
                       bar(0, "comm", "<rstd>", 122.5, 124.0)]),
            step(512, [bar(0, "compute", "second of equals", 0.0, 1.0)])]}))
        make(results, out)
        timeline = (out / "ch12_timeline.html").read_text()
        assert "512 tokens, 64 -&gt; 32, 2 GPUs" in timeline and "Pair GPU" in timeline, timeline
        assert "moments (compute): 0.0 to 10.0 µs, 10.0 µs" in timeline, timeline
        assert "all-reduce (comm): 10.0 to 22.5 µs, 12.5 µs" in timeline, timeline
        assert "&lt;rstd&gt;" in timeline and "comm stream" in timeline, timeline
        for absent in ("rank 1 only", "few tokens", "second of equals", "No measured"):
            assert absent not in timeline, absent
        (results / "ch12.json").write_text(json.dumps({"overlap": []}))
        make(results, out)
        assert "No measured results" in (out / "ch12_timeline.html").read_text()
        (results / "ch12.json").unlink()

        kernel = lambda name, ch, op, ms, extra: dict(
            name=name, chapter=ch, op=op, case="c", passed=True, median_ms=ms, min_ms=ms,
            bytes=1.0, gbps=1.0 / ms, percent_of_copy_roof=50.0 / ms, **extra)
        tour = {"gpu": "Test GPU", "copy_roof_gbps": 2.0,
                "problem": {"rows": 2048, "cols": 8192, "dtype": "fp32"},
                "kernels": [kernel("ch00_rmsnorm_eager", 0, "rmsnorm", 2.0, {}),
                            kernel("ch04_rmsnorm_float4", 4, "rmsnorm", 0.5,
                                   {"speedup_vs_eager": 4.0, "speedup_vs_previous": 4.0})]}
        (results / "tour-2048x8192-fp32.json").write_text(json.dumps(tour))
        (results / "run.json").write_text(json.dumps({"gpu": "Test GPU", "driver": "1.0",
                                                      "date": "2000-01-02T03:04:05Z",
                                                      "command": "test"}))
        bench_entry = lambda name, us, error=None: {
            "name": name + "/min_time:0.050/manual_time", "run_name": name + "/min_time:0.050/manual_time",
            "run_type": "iteration", "real_time": us, "time_unit": "us", "GB/s": 1.0,
            "pct_copy_roof": 10.0, **({"error_occurred": True, "error_message": error} if error else {})}
        bench = {"context": {"date": "2000-01-03T00:00:00+00:00", "gpu": "Bench GPU",
                             "copy_roof_gbps": "3.0"},
                 "benchmarks": [bench_entry("ch00_rmsnorm_eager/bf16/8192x576", 40.0),
                                bench_entry("ch06_add_rmsnorm_fused/bf16/8192x576", 5.0),
                                bench_entry("ch07_rmsnorm/bf16/8192x576", 10.0),
                                bench_entry("ch07_rmsnorm_broken/bf16/8192x576", 0, "verification failed: y"),
                                bench_entry("block_sweep/ch02_tree@1024/fp32/2048x8192", 7.0),
                                bench_entry("block_sweep/ch03_shuffle@1024/fp32/2048x8192", 6.0),
                                bench_entry("block_sweep/ch03_shuffle@256/fp32/2048x8192", 9.0)]}
        (results / "bench.json").write_text(json.dumps(bench))
        make(results, out)

        ch04 = (out / "ch04_results.html").read_text()
        assert "ch04_rmsnorm_float4" in ch04 and "ch00_rmsnorm_eager" not in ch04, ch04
        assert "Test GPU" in ch04 and "2000-01-02" in ch04 and "4.00" in ch04, ch04
        assert "No measured results" in (out / "ch05_results.html").read_text()
        ch07 = (out / "ch07_results.html").read_text()
        # 40 us eager over 10 us: 4x; the add kernel is another op and not the previous chapter.
        assert "Bench GPU" in ch07 and "<td>4.00</td><td>4.00</td>" in ch07, ch07
        assert "verification failed" in ch07, ch07
        assert "add_rmsnorm" in (out / "ch06_results.html").read_text()
        ladder = (out / "ladder_rmsnorm_2048x8192.svg").read_text()
        assert "No measured results" not in (out / "ladder_all_2048x8192.svg").read_text()
        assert "ch04_rmsnorm_float4" in ladder and "Test GPU" in ladder and "100.0%" in ladder
        assert (out / "ladder_rmsnorm_8192x576_bf16.svg").exists()
        assert "ch07_rmsnorm" in (out / "performance_results.html").read_text()
        sweep = (out / "ch03_block_sizes.html").read_text()
        assert "<td>1024</td><td>7.0 (10.0%)</td><td>6.0 (10.0%)</td>" in sweep, sweep
        assert "<td>256</td><td>&mdash;</td><td>9.0 (10.0%)</td>" in sweep, sweep
        assert "shuffle@" not in (out / "ch03_results.html").read_text()
    print("make_figures self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    make(Path(argv[1]), Path(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
