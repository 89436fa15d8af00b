#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The table and charts of bench/compare_peers.py's results, for the performance page.

    plot_peers.py [RESULT_JSON] [OUT_DIR]
    plot_peers.py --combine OUT_JSON RESULT_JSON...
    plot_peers.py --self-test

RESULT_JSON (default book/results/peer_comparison.json) is compare_peers.py's output; OUT_DIR
(default: the JSON's folder) receives:
  peer_comparison.md             the table, one section and chart per row group, with the GPU,
                                 driver, date and the version of PyTorch and of every peer
                                 (and a copy of each row's bytes, where the run timed one)
  peer_comparison-<group>.svg    one bar chart per row group: % of the copy roof, or
                                 microseconds for the few-row group
  peer_comparison.html           the same for the book (\\htmlinclude), the charts inline
Where RESULT_JSON does not exist, only peer_comparison.html is written, saying where the table
will come from.

--combine joins the results of several runs of compare_peers.py on one machine (a device call
may be too short for every row in one process: `--only bf16`, `--only fp16`, `--only fp32`)
into OUT_JSON, which the first form then draws. Each row keeps the copy roof and the empty-kernel
floor its own run measured, and the heading names every run; runs on different GPUs, drivers
or peer versions are refused. Python standard library only.
"""
import html
import json
import re
import sys
import tempfile
from pathlib import Path

import record_lines

RESULTS = Path(__file__).resolve().parent / "results"
RESULT_FILE = "peer_comparison.json"
PAGE_FILE = "peer_comparison.html"
TABLE_FILE = "peer_comparison.md"
NORMLAB = "normlab"
# Bar colours by implementation, in the order the columns first appear; normlab's stands out.
PALETTE = ["#8c8c8c", "#b5b5b5", "#4c72b0", "#8fa8d6", "#dd8452", "#55a868", "#8172b3",
           "#937860", "#da8bc3"]
NORMLAB_COLOUR = "#c44e52"


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def value(implementation, unit):
    """The number a cell and a bar show, or None where the implementation has none."""
    if implementation.get("median_ms") is None:
        return None
    if unit == "microseconds":
        return implementation["median_ms"] * 1e3
    return implementation["percent_of_copy_roof"]


def describe_value(number, unit):
    return f"{number:.1f} µs" if unit == "microseconds" else f"{number:.1f}%"


def offers_op(implementation, row):
    return implementation.get("note") != f"offers no {row['op']}"


# An error message may carry a terminal's colour codes (QuACK's do); the page shows the text.
TERMINAL_COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def cell_text(implementation, row):
    unit = row["unit"]
    number = value(implementation, unit)
    if not offers_op(implementation, row):
        return "–"
    if number is None:
        return TERMINAL_COLOURS.sub("", implementation.get("note", "not run"))
    text = describe_value(number, unit)
    if unit != "microseconds":
        text += f" ({implementation['median_ms'] * 1e3:.1f} µs)"
    if implementation.get("kernel"):
        text += f" {implementation['kernel']}"
    return text


def shape_text(row):
    return f"{row['op']} {row['dtype']} {row['rows']}×{row['cols']}"


def column_names(rows):
    """Every implementation's name in the order of first appearance, normlab last."""
    names = []
    for row in rows:
        names += [i["name"] for i in row["implementations"] if i["name"] not in names]
    return [n for n in names if n != NORMLAB] + [NORMLAB]


def colours(names):
    others = iter(PALETTE * 2)
    return {n: NORMLAB_COLOUR if n == NORMLAB else next(others) for n in names}


def grouped_rows(report):
    groups = {name: [] for name in report["groups"]}
    for row in report["rows"]:
        groups.setdefault(row["group"], []).append(row)
    return {name: rows for name, rows in groups.items() if rows}


def best_peer_text(row):
    best = row.get("best_peer")
    if best is None:
        return "none timed"
    return f"{best['name']} ({describe_value(value(best, row['unit']), row['unit'])})"


def ratio_text(row):
    ratio = row.get("normlab_vs_best_peer")
    return f"{ratio:.2f}" if ratio else "–"


def dispatched(report):
    """Whether the run's normlab column is the dispatcher's pick (runs of compare_peers since
    it asks `normlab explain`); earlier runs show the fastest registered kernel there."""
    return any("dispatched_kernel" in row for row in report["rows"])


def fastest_text(row):
    """normlab's fastest registered kernel on the row, where it is not the dispatcher's."""
    fastest = row.get("normlab_fastest")
    if fastest is None:
        return "–"
    if fastest["kernel"] == row.get("dispatched_kernel"):
        return "the same"
    return f"{fastest['kernel']} {describe_value(value(fastest, row['unit']), row['unit'])}"


def copied(report):
    """Whether the run timed a copy of each row's bytes (runs of compare_peers before the
    copy column have none)."""
    return any("copy_of_row_bytes" in row for row in report["rows"])


def copy_text(row):
    """What a copy of the row's bytes reached, timed as every column (a reference, not a
    ceiling: see heading)."""
    copy = row.get("copy_of_row_bytes")
    return describe_value(value(copy, row["unit"]), row["unit"]) if copy else "–"


def extra_columns(report):
    return (["normlab's fastest kernel"] if dispatched(report) else []) + \
        (["copy of the same bytes"] if copied(report) else [])


def extra_cells(report, row):
    return ([fastest_text(row)] if dispatched(report) else []) + \
        ([copy_text(row)] if copied(report) else [])


def check_text(row):
    normlab = next(i for i in row["implementations"] if i["name"] == NORMLAB)
    return normlab.get("check", {}).get("verdict", "–")


def roof_text(report):
    runs = report.get("runs")
    if not runs:
        return (f"Copy roof {report['copy_roof_gbps']:.0f} GB/s (torch `copy_` of 512 MiB, same "
                "run). ")
    commands = ", ".join(f"`{run['only'] or 'every row'}` ({run['copy_roof_gbps']:.0f} GB/s)"
                         for run in runs)
    return (f"{len(runs)} runs of the tool on the same machine, one process each, its rows "
            f"chosen by --only: {commands}; each run measured its own copy roof (torch `copy_` "
            "of 512 MiB), and each row is scored against its own run's. ")


def heading(report):
    versions = ", ".join(f"{name} {version}" for name, version in report["versions"].items())
    return (f"Measured with `bench/compare_peers.py` on {report['gpu']}, {report['date'][:10]}, "
            f"driver {report['driver']}, CUDA {report.get('cuda_version') or '?'}; {versions}. "
            + roof_text(report) +
            "Each cell: % of the copy roof by normlab's bytes model (and the GPU time), or the "
            "time alone for the few-row group; every implementation's output was compared with "
            "float64 before it was timed. normlab × best peer: the best peer's time over "
            "normlab's (above 1, normlab is faster)."
            + (" The normlab column is the kernel normlab's dispatcher picks for the row "
               "(`normlab explain`, what `normlab::run` runs); the last column names normlab's "
               "fastest registered kernel where it is another." if dispatched(report) else
               " The normlab column is normlab's fastest registered kernel on the row.")
            + (" Copy of the same bytes: torch `copy_` reading half of the row's bytes and "
               "writing the other half, timed as every column: what PyTorch's copy of the bytes "
               "alone reaches at this size. A reference, not a ceiling: PyTorch's copy is not "
               "the fastest way to move bytes, and on rows of a few megabytes norm kernels pass "
               "it by many points." if copied(report)
               else "")
            + ("" if report.get("complete", True) else
               " This run stopped before its last rows: only those it finished are shown."))


# ---------------------------------------------------------------- chart


def bar_chart(title, rows, unit, palette):
    """One SVG: per row, one bar per implementation that has a time."""
    left, bar_x, bar_width, line = 8, 250, 420, 13
    scale_max = max([100.0] if unit == "percent" else [0.0]
                    + [value(i, unit) or 0.0 for r in rows for i in r["implementations"]])
    scale_max = scale_max or 1.0
    body, y = [], 44
    for row in rows:
        body.append(f'<text x="{left}" y="{y}" font-weight="bold">'
                    f'{html.escape(shape_text(row))}</text>')
        y += 6
        for implementation in row["implementations"]:
            if not offers_op(implementation, row):
                continue
            number = value(implementation, unit)
            name = implementation["name"]
            body.append(f'<text x="{bar_x - 6}" y="{y + 10}" text-anchor="end">'
                        f'{html.escape(name)}</text>')
            if number is None:
                note = TERMINAL_COLOURS.sub("", implementation.get("note", "not run"))
                body.append(f'<text x="{bar_x}" y="{y + 10}" fill="#777">'
                            f'{html.escape(note[:80])}</text>')
            else:
                length = bar_width * number / scale_max
                body.append(f'<rect x="{bar_x}" y="{y + 1}" width="{length:.1f}" height="{line - 2}" '
                            f'fill="{palette[name]}"/>')
                body.append(f'<text x="{bar_x + length + 4:.1f}" y="{y + 10}">'
                            f'{describe_value(number, unit)}</text>')
            y += line
        y += 16
    axis = "microseconds (shorter is faster)" if unit == "microseconds" else \
        "% of the copy roof (longer is faster)"
    height = y
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="760" height="{height}" '
        f'viewBox="0 0 760 {height}" font-family="sans-serif" font-size="11">',
        f'<text x="{left}" y="18" font-size="14" font-weight="bold">{html.escape(title)}</text>',
        f'<text x="{left}" y="33" fill="#555">{axis}</text>',
        *body, "</svg>"])


# ---------------------------------------------------------------- Markdown and HTML


def floor_text(report, rows):
    """For a group timed in microseconds: what a kernel that does nothing takes in the same
    harness, the floor under every cell of it ("" where the run did not measure one)."""
    run = rows[0].get("run")  # a joined report's rows name their run (combine)
    floor_ms = (report.get("empty_kernel_ms") if run is None
                else report["runs"][run]["empty_kernel_ms"])
    if rows[0]["unit"] != "microseconds" or floor_ms is None:
        return ""
    return (f"An empty kernel, timed the same way in the same run, takes {floor_ms * 1e3:.1f} µs: "
            "the floor under every cell of this group.")


def markdown(report, groups, names):
    lines = [f"# normlab and its peers on {report['gpu']}", "", heading(report), ""]
    for group, rows in groups.items():
        floor = floor_text(report, rows)
        lines += [f"## {group}", "", *([floor, ""] if floor else []),
                  f"![{group}](peer_comparison-{slug(group)}.svg)", "",
                  "| case | " + " | ".join(names) + " | best peer | normlab × best peer "
                  "| normlab checked |" + "".join(f" {c} |" for c in extra_columns(report)),
                  "|---|" + "---|" * (len(names) + 3 + len(extra_columns(report)))]
        for row in rows:
            by_name = {i["name"]: i for i in row["implementations"]}
            cells = [cell_text(by_name[n], row) if n in by_name else "–" for n in names]
            cells += [best_peer_text(row), ratio_text(row), check_text(row)]
            cells += extra_cells(report, row)
            lines.append(f"| {shape_text(row)} | "
                         + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def html_page(report, groups, names, charts):
    caption = html.escape(heading(report)).replace("`", "")
    parts = [f'<p class="normlab-peers-caption">{caption}</p>']
    for group, rows in groups.items():
        parts.append(f"<h3>{html.escape(group)}</h3>")
        floor = floor_text(report, rows)
        if floor:
            parts.append(f"<p>{html.escape(floor)}</p>")
        parts.append(charts[group])
        head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
        parts.append(f'<table class="doxtable normlab-peers"><tr><th>case</th>{head}'
                     "<th>best peer</th><th>normlab &times; best peer</th>"
                     "<th>normlab checked</th>"
                     + "".join(f"<th>{html.escape(c)}</th>" for c in extra_columns(report))
                     + "</tr>")
        for row in rows:
            by_name = {i["name"]: i for i in row["implementations"]}
            cells = [cell_text(by_name[n], row) if n in by_name else "–" for n in names]
            cells += [best_peer_text(row), ratio_text(row), check_text(row)]
            cells += extra_cells(report, row)
            parts.append(f"<tr><td>{html.escape(shape_text(row))}</td>"
                         + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        parts.append("</table>")
    return "\n".join(parts) + "\n"


def placeholder_page():
    return ("<p><em>No peer comparison is committed yet.</em> It will come from one run of "
            "<code>bench/compare_peers.py</code> on an H100 or H200 (peers installed with "
            "<code>scripts/peer-wheels</code>), written to "
            "<code>book/results/peer_comparison.json</code> and turned into this table and its "
            "charts by <code>book/plot_peers.py</code>.</p>\n")


# What must be the same in every run that combine() joins.
SAME_MACHINE = ("gpu", "driver", "cuda_version", "torch_version", "versions")


def only_of(command):
    """The --only text of a compare_peers command line ("" for every row)."""
    found = re.search(r"--only[ =](\S+)", command or "")
    return found.group(1) if found else ""


def combine(result_jsons):
    """One report of several runs' rows; each row names its run (an index into "runs", which
    keeps each run's copy roof and floor)."""
    reports = [json.loads(Path(path).read_text()) for path in result_jsons]
    first = reports[0]
    for path, report in zip(result_jsons[1:], reports[1:]):
        for key in SAME_MACHINE:
            if report.get(key) != first.get(key):
                raise ValueError(f"plot_peers: {path} has {key} {report.get(key)!r}, "
                                 f"{result_jsons[0]} {first.get(key)!r}: not one machine")
    combined = {key: value for key, value in first.items() if key not in ("rows", "groups")}
    combined.pop("copy_roof_gbps", None)
    combined.pop("empty_kernel_ms", None)
    combined.update(runs=[], rows=[], groups={},
                    complete=all(report.get("complete", True) for report in reports))
    for run, report in enumerate(reports):
        combined["runs"].append({"only": only_of(report.get("command")),
                                 "command": report.get("command"), "date": report["date"],
                                 "copy_roof_gbps": report["copy_roof_gbps"],
                                 "empty_kernel_ms": report.get("empty_kernel_ms")})
        for name, unit in report["groups"].items():
            combined["groups"].setdefault(name, unit)
        combined["rows"] += [{**row, "run": run} for row in report["rows"]]
    return combined


def make(result_json, out):
    out.mkdir(parents=True, exist_ok=True)
    if not result_json.exists():
        (out / PAGE_FILE).write_text(placeholder_page())
        print(f"plot_peers: no {result_json}; wrote the placeholder {out / PAGE_FILE}")
        return
    report = json.loads(result_json.read_text())
    groups = grouped_rows(report)
    names = column_names(report["rows"])
    palette = colours(names)
    charts = {}
    for group, rows in groups.items():
        charts[group] = bar_chart(f"{group}, {report['gpu']}", rows, rows[0]["unit"], palette)
        (out / f"peer_comparison-{slug(group)}.svg").write_text(charts[group] + "\n")
    (out / TABLE_FILE).write_text(markdown(report, groups, names))
    (out / PAGE_FILE).write_text(html_page(report, groups, names, charts))
    print(f"plot_peers: wrote {out / TABLE_FILE}, {out / PAGE_FILE} and {len(groups)} charts")


def self_test():
    """make() on made-up results in a temporary directory; the numbers never leave it."""
    implementation = lambda name, ms, percent, **extra: {
        "name": name, "median_ms": ms, "percent_of_copy_roof": percent, **extra}
    report = {
        "gpu": "Made-up GPU", "driver": "1.0", "cuda_version": "13.0", "date": "2026-01-02T03:04",
        "copy_roof_gbps": 1000.0, "versions": {"torch": "9.9", "liger-kernel": "not installed"},
        "groups": {"bf16, many rows": "percent", "few rows": "microseconds"},
        "rows": [
            {"op": "rmsnorm", "rows": 4, "cols": 8, "dtype": "bf16", "group": "bf16, many rows",
             "unit": "percent", "bytes": 1e6, "best_peer": implementation("torch eager", 0.002, 50.0),
             "normlab_vs_best_peer": 2.0,
             "implementations": [
                 implementation("torch eager", 0.002, 50.0),
                 {"name": "Liger", "note": "not installed"},
                 implementation(NORMLAB, 0.001, 100.0, kernel="ch07_rmsnorm",
                                check={"verdict": "matches float64 (worst error 0.1 of tolerance)"})]},
            {"op": "rmsnorm_backward", "rows": 1, "cols": 8, "dtype": "bf16", "group": "few rows",
             "unit": "microseconds", "bytes": 1e3, "best_peer": implementation("QuACK", 0.004, 1.0),
             "implementations": [
                 implementation("QuACK", 0.004, 1.0),
                 {"name": "Liger", "note": "wrong: 3 of 8 dx | outside"},
                 {"name": "FlashInfer", "note": "offers no rmsnorm_backward"},
                 {"name": NORMLAB, "note": "no kernel"}]},
        ],
    }
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)

        def drawn(results):  # the Markdown table make() draws from @p results
            (out / RESULT_FILE).write_text(json.dumps(results))
            make(out / RESULT_FILE, out)
            return (out / TABLE_FILE).read_text()

        make(out / RESULT_FILE, out)
        assert "No peer comparison is committed yet" in (out / PAGE_FILE).read_text()
        table = drawn(report)
        assert "Made-up GPU" in table and "liger-kernel not installed" in table, table
        assert "stopped before its last rows" not in table
        assert "| rmsnorm bf16 4×8 | 50.0% (2.0 µs) | not installed | – | – | 100.0% (1.0 µs) " \
            "ch07_rmsnorm | torch eager (50.0%) | 2.00 | matches float64" in table, table
        assert "| – | wrong: 3 of 8 dx \\| outside | 4.0 µs | – | no kernel | QuACK (4.0 µs) | – | – |" \
            in table, table
        assert "![few rows](peer_comparison-few-rows.svg)" in table
        assert "An empty kernel" not in table, table  # a run that measured no floor names none
        chart = (out / "peer_comparison-few-rows.svg").read_text()
        assert "4.0 µs" in chart and "microseconds" in chart and "FlashInfer" not in chart, chart
        page = (out / PAGE_FILE).read_text()
        assert page.count("<svg") == 2 and "<td>no kernel</td>" in page, page
        assert "normlab's fastest registered kernel on the row" in table, table
        # A run whose normlab column is the dispatcher's pick names the fastest where it differs.
        report["rows"][0].update(dispatched_kernel="ch07_rmsnorm", normlab_fastest={
            "kernel": "ch04_fused", "median_ms": 0.0008, "percent_of_copy_roof": 125.0})
        report["rows"][1].update(dispatched_kernel=None)
        table = drawn(report)
        assert "the kernel normlab's dispatcher picks" in table, table
        assert "| normlab checked | normlab's fastest kernel |" in table, table
        assert "| matches float64 (worst error 0.1 of tolerance) | ch04_fused 125.0% |" in table, table
        header = "<th>" + html.escape("normlab's fastest kernel") + "</th>"
        assert header in (out / PAGE_FILE).read_text()
        assert "copy of the same bytes" not in table, table  # a run that timed no copy
        # A run that timed a copy of each row's bytes shows it last, in the row's unit.
        report["rows"][0]["copy_of_row_bytes"] = {"median_ms": 0.0009,
                                                  "percent_of_copy_roof": 111.1}
        report["rows"][1]["copy_of_row_bytes"] = {"median_ms": 0.0031,
                                                  "percent_of_copy_roof": 0.3}
        table = drawn(report)
        assert "| normlab's fastest kernel | copy of the same bytes |" in table, table
        assert "| ch04_fused 125.0% | 111.1% |" in table, table
        assert "| QuACK (4.0 µs) | – | – | – | 3.1 µs |" in table, table
        assert "A reference, not a ceiling" in table, table
        assert "<td>111.1%</td>" in (out / PAGE_FILE).read_text()
        del report["rows"][1]["copy_of_row_bytes"]
        # A row of a run that timed copies but not for it (none in the tool): "–".
        assert "| QuACK (4.0 µs) | – | – | – | – |" in drawn(report)
        # The floor is stated under the few-row group, and only there.
        report["empty_kernel_ms"] = 0.0035
        table = drawn(report)
        floor = "An empty kernel, timed the same way in the same run, takes 3.5 µs"
        assert table.count(floor) == 1 and table.index("## few rows") < table.index(floor), table
        assert html.escape(floor) in (out / PAGE_FILE).read_text()
        # Two runs joined: every row once, each run's roof named, the floor its own run's; a run
        # from another GPU refused.
        many = dict(report, rows=report["rows"][:1], groups={"bf16, many rows": "percent"},
                    command="compare_peers.py --only bf16", empty_kernel_ms=None)
        few = dict(report, rows=report["rows"][1:], groups={"few rows": "microseconds"},
                   command="compare_peers.py --only 4096", copy_roof_gbps=990.0,
                   empty_kernel_ms=0.0041)
        (out / "many.json").write_text(json.dumps(many))
        (out / "few.json").write_text(json.dumps(few))
        assert main(["--combine", str(out / RESULT_FILE), str(out / "many.json"),
                     str(out / "few.json")]) == 0
        make(out / RESULT_FILE, out)
        table = (out / TABLE_FILE).read_text()
        assert "2 runs of the tool on the same machine" in table, table
        assert "`bf16` (1000 GB/s), `4096` (990 GB/s)" in table, table
        assert "Copy roof" not in table and table.count("| rmsnorm") == 2, table
        assert "takes 4.1 µs" in table and "3.5 µs" not in table, table
        (out / "other.json").write_text(json.dumps(dict(few, gpu="Another GPU")))
        assert main(["--combine", str(out / "refused.json"), str(out / "many.json"),
                     str(out / "other.json")]) == 1
        assert not (out / "refused.json").exists()
    print("plot_peers self-test: ok")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if argv[:1] == ["--combine"] and len(argv) >= 4:
        try:
            combined = combine(argv[2:])
        except ValueError as error:
            print(error, file=sys.stderr)
            return 1
        Path(argv[1]).write_text(record_lines.dumps(combined))
        print(f"plot_peers: wrote {argv[1]}, {len(combined['rows'])} rows of {len(argv) - 2} runs")
        return 0
    if len(argv) > 2 or any(a.startswith("-") for a in argv):
        print(__doc__)
        return 2
    result_json = Path(argv[0]) if argv else RESULTS / RESULT_FILE
    make(result_json, Path(argv[1]) if len(argv) > 1 else result_json.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
