#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The share of the repository's tracked lines that are not the product: the results
(book/results/) and the worklog pages (book/pages/worklog-*.md), against every tracked line.

    python3 book/results_share.py                 print the two counts and the share
    python3 book/results_share.py --check         and fail (exit 1) when the share is over MOST
    python3 book/results_share.py --check --most 0.2
                                                  the same against another bound
    python3 book/results_share.py --self-test

A line is a newline character, as `wc -l` counts them; the files are those `git ls-files` lists,
read from the working tree. Whatever the book does not read leaves book/results/ (git history
keeps it, and a page names it by commit), so that the lessons and the library stay the bulk of
the repository.
Python standard library only.
"""
import argparse
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MOST = Fraction(1, 3)


def is_outside_product(path):
    """Whether a tracked path is a result or a worklog page."""
    return path.startswith("book/results/") or (
        path.startswith("book/pages/worklog-") and path.endswith(".md"))


def tracked_paths(root):
    listing = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], check=True,
                             capture_output=True).stdout
    return [name.decode() for name in listing.split(b"\0") if name]


def line_counts(root, paths):
    """(lines outside the product, all lines) of the given paths under root; paths that are not
    plain files in the working tree (a submodule, a file deleted and not yet staged) count 0."""
    outside = total = 0
    for path in paths:
        file = root / path
        if not file.is_file() or file.is_symlink():
            continue
        lines = file.read_bytes().count(b"\n")
        total += lines
        if is_outside_product(path):
            outside += lines
    return outside, total


def report(outside, total, most):
    share = outside / total if total else 0.0
    print(f"results and worklogs: {outside} lines of {total} tracked, {100 * share:.1f}% "
          f"(at most {100 * float(most):.1f}%)")
    return share <= most if total else True


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {"kernels/k.cu": 6, "book/results/run.json": 2, "book/pages/worklog-ch01.md": 1,
                 "book/pages/ch01-x.md": 3, "book/resultsX.txt": 4}
        for path, lines in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text("x\n" * lines)
        paths = list(files) + ["gone.txt"]
        assert line_counts(root, paths) == (3, 16), line_counts(root, paths)
        assert report(3, 16, MOST)
        # Over the bound fails, exactly at it passes.
        (root / "book/results/run.json").write_text("x\n" * 5)
        assert line_counts(root, paths) == (6, 19)
        assert not report(6, 19, Fraction(6, 20))
        assert report(6, 18, MOST)
    print("results_share self-test: ok")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--most", type=Fraction, default=MOST,
                        help="the largest share allowed (default 1/3)")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args(argv)
    if args.self_test:
        self_test()
        return 0
    within = report(*line_counts(REPO, tracked_paths(REPO)), args.most)
    if args.check and not within:
        print("FAIL: book/results/ and the worklog pages hold more than the bound; keep in "
              "book/results/ only what the book reads")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
