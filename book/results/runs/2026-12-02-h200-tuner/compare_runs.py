#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two sweeps of one dtype, row by row: normlab's ratio to the best peer in each (each against
the peers of its own run), over the rows both measured, and the rows whose kernel changed.

    python3 compare_runs.py BEFORE.json AFTER.json"""
import json
import math
import sys


def geo(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main(before_path, after_path):
    before = {(r["op"], r["rows"], r["cols"]): r for r in json.load(open(before_path))["rows"]}
    pairs = []
    for row in json.load(open(after_path))["rows"]:
        old = before.get((row["op"], row["rows"], row["cols"]))
        if old and old.get("normlab_vs_best_peer") and row.get("normlab_vs_best_peer"):
            pairs.append((old, row))
    changed = [(o, n) for o, n in pairs if o["normlab_kernel"] != n["normlab_kernel"]]
    print(f"{len(pairs)} rows in both: geo-mean of best peer / normlab "
          f"{geo([o['normlab_vs_best_peer'] for o, _ in pairs]):.3f} before, "
          f"{geo([n['normlab_vs_best_peer'] for _, n in pairs]):.3f} after")
    print(f"{len(changed)} rows whose kernel changed: "
          f"{geo([o['normlab_vs_best_peer'] for o, _ in changed]):.3f} before, "
          f"{geo([n['normlab_vs_best_peer'] for _, n in changed]):.3f} after")
    for o, n in sorted(changed, key=lambda p: (p[1]["cols"], p[1]["op"], p[1]["rows"])):
        print(f"  {n['op']:12s} {n['rows']:>6} x {n['cols']:<5} {o['normlab_vs_best_peer']:.3f} "
              f"-> {n['normlab_vs_best_peer']:.3f}  {o['normlab_kernel']} -> {n['normlab_kernel']}")


if __name__ == "__main__":
    main(*sys.argv[1:])
