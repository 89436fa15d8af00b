#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""For every grid point of a tuned table, the time of the kernel the decision table's rules pick
(`normlab explain --sm 90`, which plans by the rules alone) against the tuned pick, both read from
the same table (the same run). Needs no GPU.

    python3 rules_vs_tuned.py NORMLAB TABLE.tsv

Where the rules name chapter 10's own chooser for a few wide rows (it picks its path on the GPU),
the point is left out and counted."""
import math
import re
import subprocess
import sys


def rules_pick(normlab, op, dtype, rows, cols):
    text = subprocess.run([normlab, "explain", "--sm", "90", "--op", op, "--dtype", dtype,
                           "--rows", str(rows), "--cols", str(cols)],
                          capture_output=True, text=True, check=True).stdout
    kernel = re.search(r"^kernel:\s+(\S+)", text, re.M).group(1)
    launch = re.search(r"^launch:\s+(.*)$", text, re.M).group(1)
    if kernel.startswith("ch09_"):
        config = launch.split(":")[0]
        return f"{kernel}@{config}" if re.fullmatch(r"(narrow|block)\w*", config) else f"ch07_{op}"
    return kernel


def main(normlab, path):
    ratios, skipped, worst = [], 0, []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        op, dtype, rows, cols, ranking = line.rstrip("\n").split("\t")
        times = dict(item.split("=") for item in ranking.split())
        best_kernel, best = ranking.split()[0].split("=")
        chosen = rules_pick(normlab, op, dtype, rows, cols)
        if chosen not in times:
            skipped += 1
            continue
        ratio = float(times[chosen]) / float(best)
        ratios.append(ratio)
        worst.append((ratio, f"{op} {dtype} {rows} x {cols}: rules {chosen} {times[chosen]} ms, "
                             f"tuned {best_kernel} {best} ms"))
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"{path}: {len(ratios)} grid points ({skipped} left out: chapter 10's chooser)")
    print(f"rules' time / tuned time: geometric mean {geo:.3f}, "
          f"tuned faster by 5% or more on {sum(r >= 1.05 for r in ratios)}, "
          f"equal on {sum(r == 1.0 for r in ratios)}")
    for ratio, text in sorted(worst, reverse=True)[:10]:
        print(f"  {ratio:.2f}  {text}")


if __name__ == "__main__":
    main(*sys.argv[1:])
