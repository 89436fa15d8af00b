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

PROFILE_DIR holds run.json (gpu, driver, date, ncu), cases.tsv (one line a case: label,
chapter, registry kernel, op, rows, cols, kernel regex, launches) and LABEL.csv, the output of
`ncu --csv --page raw --print-units base` for that case. Every number in the tables is read from
those files; a metric ncu did not report is shown as a dash.
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

# The tensors each op must move, in units of rows x cols elements (normlab::bytes_moved, without
# the parameters): the DRAM bytes ncu counts are compared with this model.
TENSORS_MOVED = {"copy": 2, "rmsnorm": 2, "layernorm": 2, "add_rmsnorm": 4, "add_layernorm": 4}
STALL = re.compile(r"^smsp__average_warps?_(?:latency_)?issue_stalled_([a-z_]+?)"
                   r"(?:_per_issue_active)?\.ratio$")
NOT_A_STALL = {"selected", "not_issued"}
COLUMNS = ["case", "kernel", "shape", "time (us)", "DRAM % of peak", "DRAM bytes / model",
           "L2 hit, reads", "achieved occupancy", "registers / thread", "top stalls (cycles per issue)"]


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


def summarise(case, launches):
    """One table row from the launches of one case; a case of several launches (the unfused
    pair) adds their times and bytes and reports the others of its longest launch."""
    total = lambda metric: sum(number(l.get(metric)) or 0.0 for l in launches)
    longest = max(launches, key=lambda l: number(l.get("gpu__time_duration.sum")) or 0.0)
    rows, cols = int(case["rows"]), int(case["cols"])
    model = TENSORS_MOVED.get(case["op"], 2) * rows * cols * 4
    dram = total("dram__bytes_read.sum") + total("dram__bytes_write.sum")
    stalls = {}
    for metric, text in longest.items():
        match = STALL.match(metric)
        value = number(text)
        if match and value is not None and match.group(1) not in NOT_A_STALL:
            stalls[match.group(1)] = value
    top = sorted(stalls.items(), key=lambda kv: -kv[1])[:3]
    return {
        "case": case["label"], "chapter": int(case["chapter"]), "kernel": case["kernel"],
        "op": case["op"], "rows": rows, "cols": cols,
        "ncu_kernels": sorted({l.get("Kernel Name", "?") for l in launches}),
        "time_us": total("gpu__time_duration.sum") / 1e3 if total("gpu__time_duration.sum") else None,
        "dram_pct_of_peak": number(longest.get("dram__throughput.avg.pct_of_peak_sustained_elapsed")),
        "dram_bytes": dram or None,
        "model_bytes": model,
        "l2_hit_pct": number(longest.get("lts__t_sector_hit_rate.pct")),
        "l2_read_hit_pct": number(longest.get("lts__t_sector_op_read_hit_rate.pct")),
        "achieved_occupancy_pct": number(longest.get("sm__warps_active.avg.pct_of_peak_sustained_active")),
        "registers_per_thread": number(longest.get("launch__registers_per_thread")),
        "top_stalls": [{"reason": r, "cycles_per_issue": v} for r, v in top],
    }


def collect(profile_dir):
    run = json.loads((profile_dir / "run.json").read_text())
    with open(profile_dir / "cases.tsv") as f:
        cases = list(csv.DictReader(f, delimiter="\t"))
    results, missing = [], []
    for case in cases:
        path = profile_dir / f"{case['label']}.csv"
        launches = read_ncu_csv(path) if path.exists() else []
        if launches:
            results.append(summarise(case, launches))
        else:
            missing.append(case["label"])
    return {"gpu": run.get("gpu", "?"), "driver": run.get("driver", "?"), "date": run.get("date", "?"),
            "ncu": run.get("ncu", "?"), "command": run.get("command", "scripts/profile"),
            "cases": results, "missing": missing}


def cells(result):
    fmt = lambda v, digits=1, suffix="": "-" if v is None else f"{v:.{digits}f}{suffix}"
    ratio = (result["dram_bytes"] / result["model_bytes"]) if result["dram_bytes"] else None
    stalls = ", ".join(f"{s['reason']} {s['cycles_per_issue']:.1f}" for s in result["top_stalls"])
    return [result["case"], result["kernel"], f"{result['rows']} x {result['cols']}",
            fmt(result["time_us"]), fmt(result["dram_pct_of_peak"], 1, "%"), fmt(ratio, 2),
            fmt(result["l2_read_hit_pct"], 1, "%"), fmt(result["achieved_occupancy_pct"], 1, "%"),
            fmt(result["registers_per_thread"], 0), stalls or "-"]


def caption(data):
    return (f"Nsight Compute ({data['ncu']}) on {data['gpu']}, driver {data['driver']}, "
            f"{data['date'][:10]}, one launch per case, fp32 (`{data['command']}`)")


def markdown(data):
    parts = [f"# Profiles\n\n{caption(data)}.\n"]
    for chapter in sorted({r["chapter"] for r in data["cases"]}):
        parts.append(f"\n## Chapter {chapter:02d}\n\n| " + " | ".join(COLUMNS) + " |\n|"
                     + "---|" * len(COLUMNS))
        for result in data["cases"]:
            if result["chapter"] == chapter:
                parts.append("| " + " | ".join(cells(result)) + " |")
    if data["missing"]:
        parts.append("\nNot profiled (see the case's .log): " + ", ".join(data["missing"]))
    return "\n".join(parts) + "\n"


def fragment(data, chapter):
    rows = [r for r in data["cases"] if r["chapter"] == chapter] if data else []
    if not rows:
        return ('<p class="normlab-no-results">No profile is committed for this chapter yet '
                "(<code>scripts/profile</code> writes <code>book/results/profile.json</code>).</p>")
    lines = [f'<table class="doxtable normlab-profile"><caption>{html.escape(caption(data))}. '
             "DRAM bytes / model: bytes DRAM moved over the bytes the op must move.</caption>",
             "<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS) + "</tr>"]
    for result in rows:
        lines.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells(result)) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def fragments(results, out, chapters=range(0, 8)):
    path = results / "profile.json"
    data = json.loads(path.read_text()) if path.exists() else None
    out.mkdir(parents=True, exist_ok=True)
    for chapter in chapters:
        (out / f"ch{chapter:02d}_profile.html").write_text(fragment(data, chapter) + "\n")


def self_test():
    """Made-up ncu output for two cases (numbers invented for the test, never committed)."""
    with tempfile.TemporaryDirectory() as scratch:
        d = Path(scratch)
        (d / "run.json").write_text(json.dumps({"gpu": "Test GPU", "driver": "1", "ncu": "v0",
                                                "date": "2000-01-02T00:00:00Z"}))
        (d / "cases.tsv").write_text("label\tchapter\tkernel\top\trows\tcols\tregex\tlaunches\n"
                                     "a\t4\tk4\trmsnorm\t2\t4\tx\t1\n"
                                     "b\t6\tk6\tadd_rmsnorm\t2\t4\ty\t2\n"
                                     "c\t7\tk7\trmsnorm\t2\t4\tz\t1\n")
        head = ('"ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum",'
                '"dram__bytes_write.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed",'
                '"lts__t_sector_op_read_hit_rate.pct","launch__registers_per_thread",'
                '"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",'
                '"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"\n'
                '"","","nsecond","byte","byte","%","%","register/thread","ratio","ratio"\n')
        (d / "a.csv").write_text("==PROF== Connected\n" + head +
                                 '"0","k","2,000","32","32","90.5","50","40","7.5","1"\n')
        (d / "b.csv").write_text(head + '"0","add","1000","64","32","80","10","30","2","1"\n'
                                 '"1","norm","3000","32","32","85","20","32","4","1"\n')
        data = collect(d)
        a, b = data["cases"]
        assert data["missing"] == ["c"], data
        assert a["time_us"] == 2.0 and a["dram_bytes"] == 64 and a["model_bytes"] == 64, a
        assert a["top_stalls"] == [{"reason": "long_scoreboard", "cycles_per_issue": 7.5}], a
        assert b["time_us"] == 4.0 and b["dram_bytes"] == 160 and b["model_bytes"] == 128, b
        assert b["dram_pct_of_peak"] == 85 and b["registers_per_thread"] == 32, b
        md = markdown(data)
        assert "## Chapter 04" in md and "| 1.00 |" in md and "| 1.25 |" in md, md
        assert "Test GPU" in md and "Not profiled" in md, md
        out = d / "out"
        fragments(d, out)
        assert "No profile" in (out / "ch04_profile.html").read_text()
        (d / "profile.json").write_text(json.dumps(data))
        fragments(d, out)
        assert "long_scoreboard 7.5" in (out / "ch04_profile.html").read_text()
        assert "No profile" in (out / "ch05_profile.html").read_text()
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
    Path(argv[2]).write_text(json.dumps(data, indent=1) + "\n")
    Path(argv[3]).write_text(markdown(data))
    print(f"profile_tables: {len(data['cases'])} cases into {argv[2]} and {argv[3]}")
    return 1 if data["missing"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
