#!/usr/bin/env python3
"""Per-block times of the traced build (patches/staged-rows-grid-cap-and-trace.patch, NL_TRACE):
each block of the persistent grid printed %globaltimer at its start, when its rows were done and
when its partial row was stored. Writes one CSV per op (launch, block, rows done and partial row
stored, in us from the launch's first block start) and prints the summary the README quotes."""
import gzip
import statistics as st
import sys


def launches(path):
    recs = []
    for line in gzip.open(path, "rt"):
        p = line.split()
        if len(p) >= 7 and p[0] == "TRACE" and p[1] == "rows":
            try:
                recs.append((int(p[2]), int(p[3]), int(p[4]), int(p[5])))
            except ValueError:  # a line cut by another block's printf
                pass
    recs.sort(key=lambda r: r[1])
    groups, cur = [], [recs[0]]
    for r in recs[1:]:
        if r[1] - cur[-1][1] > 5000:  # a new launch: starts more than 5 us apart
            groups.append(cur)
            cur = []
        cur.append(r)
    groups.append(cur)
    # Only the deterministic kernel's launches: 128 blocks, each once.
    return [g for g in groups if sorted(r[0] for r in g) == list(range(128))]


for name, path in (("layernorm", sys.argv[1]), ("rmsnorm", sys.argv[2])):
    rows = []
    with open(f"trace_{name}.csv", "w") as csv:
        csv.write("launch,block,rows_done_us,partial_stored_us\n")
        for i, g in enumerate(launches(path)):
            start = min(r[1] for r in g)
            for b, _, done, stored in sorted(g):
                csv.write(f"{i},{b},{(done - start) / 1e3:.2f},{(stored - start) / 1e3:.2f}\n")
            ends = sorted((r[2] - start) / 1e3 for r in g)
            if ends[-1] - ends[64] > 15:  # a launch held up by the printf buffer
                continue
            rows.append((ends[0], ends[64], ends[-1], max((r[3] - start) / 1e3 for r in g)))
    print(f"{name}: {len(rows)} launches; medians over them (us from the first block's start):")
    for k, what in enumerate(("first block's rows done", "median block", "last block",
                              "last partial row stored")):
        v = [r[k] for r in rows]
        print(f"  {what}: {st.median(v):.1f} (range {min(v):.1f} to {max(v):.1f})")
