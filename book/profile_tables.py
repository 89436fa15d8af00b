#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns scripts/profile's Nsight Compute CSV files into the book's profile tables.

    profile_tables.py PROFILE_DIR OUT_JSON OUT_MD   raw ncu CSV (book/results/profile) into
                                                    profile.json and one Markdown table a chapter
    profile_tables.py --fragments RESULTS_DIR OUT_DIR
                                                    chNN_profile.html for each chapter page, from
                                                    RESULTS_DIR/profile.json, or a line saying no
                                                    profile is committed yet
    profile_tables.py --self-test

PROFILE_DIR holds cases.tsv (one line a case: label, chapter, registry kernel, op, dtype, rows,
cols, kernel regex, launches, extra `normlab check` options), LABEL.csv, the output of
`ncu --csv --page raw --print-units base` for that case, and the record of the run that made
it: LABEL.run.json where the case was profiled alone (`scripts/profile --only`), else run.json
(gpu, driver, date, ncu, command). Every number in the tables is read from those files; a
metric ncu did not report is shown as a dash.
Python standard library only.
"""
import csv
import html
import io
import json
import re
import sys
import tempfile
from pathlib import Path

import record_lines

# The tensors of rows x cols elements each op must read and write (normlab::bytes_moved, without
# the parameters and statistics): the DRAM bytes ncu counts are compared with this model.
TENSORS_READ = {"copy": 1, "rmsnorm": 1, "layernorm": 1, "add_rmsnorm": 2, "add_layernorm": 2,
                "rmsnorm_backward": 2, "layernorm_backward": 2}
TENSORS_WRITTEN = {"copy": 1, "rmsnorm": 1, "layernorm": 1, "add_rmsnorm": 2, "add_layernorm": 2,
                   "rmsnorm_backward": 1, "layernorm_backward": 1}
ELEMENT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
STALL = re.compile(r"^smsp__average_warps?_(?:latency_)?issue_stalled_([a-z_]+?)"
                   r"(?:_per_issue_active)?\.ratio$")
NOT_A_STALL = {"selected", "not_issued"}
# What can cap the blocks an SM holds (ncu's launch__occupancy_limit_*), in the words of the
# tables; "warps" is the SM's thread limit.
OCCUPANCY_LIMITS = {"registers": "registers", "shared_mem": "shared memory", "warps": "threads",
                    "blocks": "blocks", "barriers": "barriers"}
COLUMNS = ["case", "kernel", "shape", "time (us)", "DRAM % of peak", "DRAM read / model",
           "DRAM write / model", "L2 hit, reads", "registers / thread", "blocks / SM (limit)",
           "waves", "achieved (theoretical) occupancy", "top stalls (cycles per issue)"]
CAPTION_NOTE = ("DRAM read (write) / model: bytes DRAM read (wrote) during the kernel over the "
                "bytes the op must read (write), its activations once. Blocks / SM: what the "
                "launch allows, and what limits it. Waves: blocks over what the GPU holds at once.")
RUN_FIELDS = ("gpu", "driver", "date", "ncu", "command")


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def read_ncu_csv(path):
    """The rows of one raw-page CSV file, as {metric: text}, without ncu's ==PROF== lines and
    the units row."""
    lines = [line for line in path.read_text(errors="replace").splitlines()
             if line.strip() and not line.startswith("==")]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if not rows:
        return []
    header = rows[0]
    body = [r for r in rows[1:] if len(r) == len(header)]
    if body and body[0] and body[0][0] == "":  # the units row
        body = body[1:]
    return [dict(zip(header, r)) for r in body]


def occupancy_limit(launch):
    """(blocks an SM may hold, the limits that set it) from ncu's per-resource limits."""
    limits = {name: number(launch.get(f"launch__occupancy_limit_{name}"))
              for name in OCCUPANCY_LIMITS}
    limits = {name: value for name, value in limits.items() if value is not None}
    if not limits:
        return None, []
    least = min(limits.values())
    return least, [OCCUPANCY_LIMITS[name] for name, value in limits.items() if value == least]


def outputs_of(case):
    """norm_linear (chapter 11): N, the outputs of the linear layer, from the case's `--n N`."""
    match = re.search(r"--n (\d+)", case["options"])
    if not match:
        raise ValueError(f"profile case {case['label']}: norm_linear needs --n N in its options")
    return int(match.group(1))


def model_bytes(case):
    """Bytes the op must read and write: its activations once, in the case's dtype; for
    norm_linear (tokens x K input, K x N weight, tokens x N output) x and W read, y written."""
    op, dtype = case["op"], case["dtype"]
    if op == "norm_linear" and dtype in ELEMENT_BYTES:
        rows, k_cols, n_cols = int(case["rows"]), int(case["cols"]), outputs_of(case)
        element = ELEMENT_BYTES[dtype]
        return (rows * k_cols + k_cols * n_cols) * element, rows * n_cols * element
    if op not in TENSORS_READ or dtype not in ELEMENT_BYTES:
        raise ValueError(f"profile case {case['label']}: no bytes model for op {op!r}, "
                         f"dtype {dtype!r}")
    tensor = int(case["rows"]) * int(case["cols"]) * ELEMENT_BYTES[dtype]
    return TENSORS_READ[op] * tensor, TENSORS_WRITTEN[op] * tensor


def summarise(case, launches, run):
    """One table row from the launches of one case; a case of several launches (the unfused
    pair, the backward kernels and their column sums) adds their times and bytes and reports
    the others of its longest launch."""
    total = lambda metric: sum(number(l.get(metric)) or 0.0 for l in launches)
    longest = max(launches, key=lambda l: number(l.get("gpu__time_duration.sum")) or 0.0)
    model_read, model_write = model_bytes(case)
    blocks, limits = occupancy_limit(longest)
    stalls = {}
    for metric, text in longest.items():
        match = STALL.match(metric)
        value = number(text)
        if match and value is not None and match.group(1) not in NOT_A_STALL:
            stalls[match.group(1)] = value
    top = sorted(stalls.items(), key=lambda kv: -kv[1])[:3]
    return {
        "case": case["label"], "chapter": int(case["chapter"]), "kernel": case["kernel"],
        "op": case["op"], "dtype": case["dtype"], "rows": int(case["rows"]),
        "cols": int(case["cols"]), "options": case["options"], "run": run,
        "ncu_kernels": sorted({l.get("Kernel Name", "?") for l in launches}),
        "time_us": total("gpu__time_duration.sum") / 1e3 if total("gpu__time_duration.sum") else None,
        "dram_pct_of_peak": number(longest.get("dram__throughput.avg.pct_of_peak_sustained_elapsed")),
        "dram_read_bytes": total("dram__bytes_read.sum") or None,
        "dram_write_bytes": total("dram__bytes_write.sum") or None,
        "model_read_bytes": model_read,
        "model_write_bytes": model_write,
        "l2_hit_pct": number(longest.get("lts__t_sector_hit_rate.pct")),
        "l2_read_hit_pct": number(longest.get("lts__t_sector_op_read_hit_rate.pct")),
        "achieved_occupancy_pct": number(longest.get("sm__warps_active.avg.pct_of_peak_sustained_active")),
        "theoretical_occupancy_pct": number(longest.get("sm__maximum_warps_per_active_cycle_pct")),
        "blocks_per_sm": blocks,
        "occupancy_limits": limits,
        "waves": number(longest.get("launch__waves_per_multiprocessor")),
        "registers_per_thread": number(longest.get("launch__registers_per_thread")),
        "top_stalls": [{"reason": r, "cycles_per_issue": v} for r, v in top],
    }


def run_record(path):
    record = json.loads(path.read_text())
    return {field: record.get(field, "?") for field in RUN_FIELDS}


def collect(profile_dir):
    """Every case of cases.tsv with a CSV file, each pointing at the run (index into "runs")
    that profiled it; the cases without one are "missing"."""
    whole_run = profile_dir / "run.json"
    with open(profile_dir / "cases.tsv") as f:
        cases = list(csv.DictReader(f, delimiter="\t"))
    runs, results, missing = [], [], []
    for case in cases:
        path = profile_dir / f"{case['label']}.csv"
        launches = read_ncu_csv(path) if path.exists() else []
        alone = profile_dir / f"{case['label']}.run.json"
        record_path = alone if alone.exists() else whole_run
        if not launches or not record_path.exists():
            missing.append(case["label"])
            continue
        record = run_record(record_path)
        if record not in runs:
            runs.append(record)
        results.append(summarise(case, launches, runs.index(record)))
    return {"runs": runs, "cases": results, "missing": missing}


def describe_run(run):
    return (f"Nsight Compute ({run['ncu']}) on {run['gpu']}, driver {run['driver']}, "
            f"{run['date'][:10]}, each case's launches profiled once (`{run['command']}`)")


def runs_of(results):
    return sorted({r["run"] for r in results})


def caption(data, results):
    """The runs a table's rows come from: one sentence, or one numbered sentence each."""
    indices = runs_of(results)
    if len(indices) == 1:
        return describe_run(data["runs"][indices[0]]) + "."
    return " ".join(f"Run {i + 1}: {describe_run(data['runs'][i])}." for i in indices)


def cells(result, numbered):
    fmt = lambda v, digits=1, suffix="": "-" if v is None else f"{v:.{digits}f}{suffix}"
    ratio = lambda bytes_, model: bytes_ / model if bytes_ else None
    stalls = ", ".join(f"{s['reason']} {s['cycles_per_issue']:.1f}" for s in result["top_stalls"])
    limit = ("-" if result["blocks_per_sm"] is None else
             f"{result['blocks_per_sm']:.0f} ({', '.join(result['occupancy_limits'])})")
    occupancy = (f"{fmt(result['achieved_occupancy_pct'], 1, '%')} "
                 f"({fmt(result['theoretical_occupancy_pct'], 0, '%')})")
    label = result["case"] + (f" (run {result['run'] + 1})" if numbered else "")
    shape = f"{result['rows']} x {result['cols']} {result['dtype']}"
    if result["op"] == "norm_linear":
        shape = f"{result['rows']} x {result['cols']} -> {outputs_of(result)} {result['dtype']}"
    return [label, result["kernel"], shape,
            fmt(result["time_us"]), fmt(result["dram_pct_of_peak"], 1, "%"),
            fmt(ratio(result["dram_read_bytes"], result["model_read_bytes"]), 2),
            fmt(ratio(result["dram_write_bytes"], result["model_write_bytes"]), 2),
            fmt(result["l2_read_hit_pct"], 1, "%"), fmt(result["registers_per_thread"], 0),
            limit, fmt(result["waves"], 2), occupancy, stalls or "-"]


def markdown(data):
    parts = ["# Profiles\n", " ".join(f"Run {i + 1}: {describe_run(run)}."
                                      for i, run in enumerate(data["runs"])),
             "\n" + CAPTION_NOTE]
    for chapter in sorted({r["chapter"] for r in data["cases"]}):
        rows = [r for r in data["cases"] if r["chapter"] == chapter]
        numbered = len(runs_of(rows)) > 1
        parts.append(f"\n## Chapter {chapter:02d}\n\n{caption(data, rows)}\n\n| "
                     + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS))
        parts.extend("| " + " | ".join(cells(r, numbered)) + " |" for r in rows)
    if data["missing"]:
        parts.append("\nNot profiled (see the case's .log): " + ", ".join(data["missing"]))
    return "\n".join(parts) + "\n"


def fragment(data, chapter):
    rows = [r for r in data["cases"] if r["chapter"] == chapter] if data else []
    if not rows:
        return ('<p class="normlab-no-results">No profile is committed for this chapter yet '
                "(<code>scripts/profile</code> writes <code>book/results/profile.json</code>).</p>")
    numbered = len(runs_of(rows)) > 1
    described = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(caption(data, rows)))
    lines = [f'<table class="doxtable normlab-profile"><caption>'
             f"{described} {html.escape(CAPTION_NOTE)}</caption>",
             "<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS) + "</tr>"]
    for result in rows:
        lines.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>"
                                      for c in cells(result, numbered)) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def chapters_with_pages():
    """The chapters the book has a page for (book/pages/chNN-*.md)."""
    pages = Path(__file__).resolve().parent / "pages"
    return sorted({int(p.name[2:4]) for p in pages.glob("ch[0-9][0-9]-*.md")})


def fragments(results, out, chapters=None):
    path = results / "profile.json"
    data = json.loads(path.read_text()) if path.exists() else None
    out.mkdir(parents=True, exist_ok=True)
    for chapter in chapters_with_pages() if chapters is None else chapters:
        (out / f"ch{chapter:02d}_profile.html").write_text(fragment(data, chapter) + "\n")


def self_test():
    """Made-up ncu output for four cases (numbers invented for the test, never committed)."""
    with tempfile.TemporaryDirectory() as scratch:
        d = Path(scratch)
        (d / "run.json").write_text(json.dumps({"gpu": "Test GPU", "driver": "1", "ncu": "v0",
                                                "date": "2000-01-02T00:00:00Z",
                                                "command": "scripts/profile"}))
        (d / "cases.tsv").write_text(
            "label\tchapter\tkernel\top\tdtype\trows\tcols\tregex\tlaunches\toptions\n"
            "a\t4\tk4\trmsnorm\tfp32\t2\t4\tx\t1\t\n"
            "b\t6\tk6\tadd_rmsnorm\tfp32\t2\t4\ty\t2\t\n"
            "c\t7\tk7\trmsnorm\tfp32\t2\t4\tz\t1\t\n"
            "e\t8\tk8\tlayernorm_backward\tbf16\t2\t8\tw\t2\t--bias\n"
            "f\t11\tfused\tnorm_linear\tfp16\t2\t8\tv\t1\t--n 4\n")
        head = ('"ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum",'
                '"dram__bytes_write.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed",'
                '"lts__t_sector_op_read_hit_rate.pct","launch__registers_per_thread",'
                '"launch__occupancy_limit_registers","launch__occupancy_limit_warps",'
                '"sm__maximum_warps_per_active_cycle_pct","launch__waves_per_multiprocessor",'
                '"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",'
                '"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"\n'
                '"","","nsecond","byte","byte","%","%","register/thread","block","block","%","",'
                '"ratio","ratio"\n')
        (d / "a.csv").write_text("==PROF== Connected\n" + head +
                                 '"0","k","2,000","32","16","90.5","50","40","4","8","50","3.88",'
                                 '"7.5","1"\n')
        (d / "b.csv").write_text(head + '"0","add","1000","64","32","80","10","30","8","8","100",'
                                 '"1","2","1"\n'
                                 '"1","norm","3000","32","32","85","20","32","2","2","100","2",'
                                 '"4","1"\n')
        (d / "e.csv").write_text(head + '"0","rows","5000","96","16","70","5","90","2","4","50",'
                                 '"2","3","1"\n'
                                 '"1","sums","500","16","8","10","0","20","8","8","100","1","1","1"\n')
        # Case e was profiled again alone, by a later run.
        (d / "e.run.json").write_text(json.dumps({"gpu": "Other GPU", "driver": "2", "ncu": "v1",
                                                  "date": "2000-02-03T00:00:00Z",
                                                  "command": "scripts/profile --only e"}))
        (d / "f.csv").write_text(head + '"0","fused","1000","96","16","30","90","64","4","8","50",'
                                 '"1","2","1"\n')
        data = collect(d)
        a, b, e, f = data["cases"]
        # norm_linear: x (2 x 8) and W (8 x 4) read, y (2 x 4) written, 2 bytes an element.
        assert f["model_read_bytes"] == 96 and f["model_write_bytes"] == 16, f
        assert data["missing"] == ["c"], data
        assert [r["gpu"] for r in data["runs"]] == ["Test GPU", "Other GPU"], data
        assert (a["run"], b["run"], e["run"]) == (0, 0, 1), data
        assert a["time_us"] == 2.0 and a["dram_read_bytes"] == 32 and a["model_read_bytes"] == 32, a
        assert a["dram_write_bytes"] == 16 and a["model_write_bytes"] == 32, a
        assert a["top_stalls"] == [{"reason": "long_scoreboard", "cycles_per_issue": 7.5}], a
        assert a["blocks_per_sm"] == 4 and a["occupancy_limits"] == ["registers"], a
        assert a["theoretical_occupancy_pct"] == 50 and a["waves"] == 3.88, a
        assert b["time_us"] == 4.0 and b["dram_read_bytes"] == 96 and b["model_read_bytes"] == 64, b
        assert b["dram_pct_of_peak"] == 85 and b["registers_per_thread"] == 32, b
        assert b["blocks_per_sm"] == 2 and b["occupancy_limits"] == ["registers", "threads"], b
        # bf16 backward: x and dy read, dx written, 2 bytes an element.
        assert e["model_read_bytes"] == 64 and e["model_write_bytes"] == 32, e
        assert e["dram_read_bytes"] == 112 and e["registers_per_thread"] == 90, e
        md = markdown(data)
        assert "## Chapter 04" in md and "| 1.00 | 0.50 |" in md and "| 1.50 | 1.00 |" in md, md
        assert "| 4 (registers) | 3.88 | - (50%) |" in md, md
        assert "Test GPU" in md and "Other GPU" in md and "Not profiled" in md, md
        assert "2 x 8 bf16" in md and "| 1.75 | 0.75 |" in md, md
        assert "2 x 8 -> 4 fp16" in md and "| 1.00 | 1.00 |" in md, md
        out = d / "out"
        fragments(d, out)
        assert "No profile" in (out / "ch04_profile.html").read_text()
        (d / "profile.json").write_text(json.dumps(data))
        fragments(d, out)
        ch04 = (out / "ch04_profile.html").read_text()
        assert "long_scoreboard 7.5" in ch04 and "4 (registers)" in ch04, ch04
        assert "Test GPU" in ch04 and "Other GPU" not in ch04 and "(run " not in ch04, ch04
        assert "(<code>scripts/profile</code>)" in ch04, ch04
        assert "Other GPU" in (out / "ch08_profile.html").read_text()
        assert "No profile" in (out / "ch05_profile.html").read_text()
        assert (out / "ch09_profile.html").exists(), "every chapter page gets a fragment"
        # A case whose op has no bytes model is an error naming the case, not a guess.
        (d / "cases.tsv").write_text((d / "cases.tsv").read_text().replace("add_rmsnorm", "add"))
        try:
            collect(d)
        except ValueError as error:
            assert "profile case b" in str(error), error
        else:
            raise AssertionError("an op without a bytes model was accepted")
    print("profile_tables self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) == 4 and argv[1] == "--fragments":
        fragments(Path(argv[2]), Path(argv[3]))
        return 0
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    data = collect(Path(argv[1]))
    Path(argv[2]).write_text(record_lines.dumps(data))
    Path(argv[3]).write_text(markdown(data))
    print(f"profile_tables: {len(data['cases'])} cases into {argv[2]} and {argv[3]}")
    return 1 if data["missing"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
