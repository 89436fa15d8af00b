#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The book's committed tables and charts are what their tools make from the results they name,
and every results path a page names exists.

    python3 book/results_match.py            check the repository; exit 1 on a difference
    python3 book/results_match.py --self-test

Made again, into a temporary folder, and compared byte for byte with the committed files:
  peer_comparison.md, .html, -GROUP.svg   book/plot_peers.py from peer_comparison.json (and no
                                          committed chart that it no longer draws)
  profile.json, profile.md                book/profile_tables.py from profile/ (ncu's CSV files,
                                          cases.tsv and the run records)
  sweep/peer_sweep-DTYPE.md               bench/compare_peers.py --summary from the sweep's JSON
The result files those tools write are in book/record_lines.py's layout (a line a record).
Every `book/results/PATH` that a page of the book, README.md, CONTRIBUTING.md or an exercise's
README names in its text exists (a pattern, `profile/ch08_*.csv`: some path starts with its
prefix); commands in code blocks (which name files they write) are not read. A pinned
reference to history (`git show COMMIT:PATH`, `git ls-tree COMMIT PATH`) names a file or folder
that COMMIT holds, checked where the clone has COMMIT (a shallow one may not: then it says so).
Python standard library only.
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import record_lines

REPO = Path(__file__).resolve().parent.parent
RECORD_FILES = ["peer_comparison.json", "profile.json", "sweep/peer_sweep-*.json"]
PAGES = ["book/pages/*.md", "README.md", "CONTRIBUTING.md", "exercises/README.md",
         "exercises/*/README.md"]
RESULTS_PATH = re.compile(r"book/results/[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-/]")
PINNED = re.compile(r"git (?:show ([0-9a-f]{7,40}):|ls-tree ([0-9a-f]{7,40}) )([^\s`]+)")


def run(root, *command):
    done = subprocess.run([sys.executable, *map(str, command)], cwd=root, capture_output=True,
                          text=True)
    if done.returncode != 0:
        return [f"{' '.join(map(str, command))} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-400:]}"]
    return []


def differences(made, committed, what):
    """Each file of @p made that is not byte for byte the committed one, named."""
    found = []
    for path in sorted(made):
        target = committed / path.name
        if not target.exists():
            found.append(f"{target.name}: missing ({what} makes it)")
        elif target.read_bytes() != path.read_bytes():
            found.append(f"{target.name}: not what {what} makes from the committed results")
    return found


def check_generated(root, scratch):
    results = root / "book" / "results"
    problems = []
    peers = scratch / "peers"
    peers.mkdir()
    problems += run(root, root / "book/plot_peers.py", results / "peer_comparison.json", peers)
    made = list(peers.iterdir())
    problems += differences(made, results, "book/plot_peers.py")
    drawn = {path.name for path in made}
    problems += [f"{chart.name}: a chart book/plot_peers.py no longer draws"
                 for chart in sorted(results.glob("peer_comparison-*.svg"))
                 if chart.name not in drawn]

    profile = scratch / "profile"
    profile.mkdir()
    problems += run(root, root / "book/profile_tables.py", results / "profile",
                    profile / "profile.json", profile / "profile.md")
    problems += differences(list(profile.iterdir()), results, "book/profile_tables.py")

    sweeps = sorted((results / "sweep").glob("peer_sweep-*.json"))
    if sweeps:
        sweep = scratch / "sweep"
        sweep.mkdir()
        copies = [shutil.copy(path, sweep) for path in sweeps]
        problems += run(root, root / "bench/compare_peers.py", "--summary", *copies)
        problems += differences(list(sweep.glob("*.md")), results / "sweep",
                                "bench/compare_peers.py --summary")
    return problems


def check_layout(root):
    problems = []
    for pattern in RECORD_FILES:
        for path in sorted((root / "book" / "results").glob(pattern)):
            text = path.read_text()
            if text != record_lines.dumps(json.loads(text)):
                problems.append(f"{path.relative_to(root)}: not in book/record_lines.py's layout "
                                "(a line a record)")
    return problems


def prose(text):
    """The lines of a Markdown page outside fenced and indented code blocks (an indented block
    starts after a blank line)."""
    lines, fenced, code, blank = [], False, False, True
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        code = line.startswith(("    ", "\t")) and (blank or code)
        blank = not line.strip()
        if not (fenced or code):
            lines.append(line)
    return "\n".join(lines)


def check_named_paths(root):
    problems = []
    for pattern in PAGES:
        for page in sorted(root.glob(pattern)):
            text = PINNED.sub("", prose(page.read_text()).replace("`\n`", "").replace("\n", " "))
            for match in RESULTS_PATH.finditer(text):
                name = match.group(0)
                # A pattern (book/results/profile/ch08_*.csv): some path starts with its prefix.
                pattern = text[match.end():match.end() + 1] in ("*", "{", "<", "[")
                found = (any(root.glob(name + "*")) if pattern else (root / name).exists())
                problem = f"{page.relative_to(root)}: names {name}, which does not exist"
                if not found and problem not in problems:
                    problems.append(problem)
    return problems


def git_has(repo, what):
    """Whether `git cat-file -e WHAT` succeeds in @p repo (a commit, or COMMIT:PATH)."""
    return subprocess.run(["git", "-C", str(repo), "cat-file", "-e", what],
                          capture_output=True).returncode == 0


def check_pinned(root, repo=REPO):
    """Each pinned reference of the pages names a path its commit holds, checked in @p repo's
    history where it has the commit; a glob, or a name with a word standing for a part
    (`peer_comparison-DTYPE.json`), is checked up to the folder above it."""
    problems, absent = [], set()
    for pattern in PAGES:
        for page in sorted(root.glob(pattern)):
            for match in PINNED.finditer(page.read_text().replace("`\n`", "")):
                commit = match.group(1) or match.group(2)
                path = match.group(3).rstrip(".,;:)/")
                parts = path.split("/")
                placeholder = [i for i, part in enumerate(parts)
                               if re.search(r"[*?\[{<]|[A-Z]{3,}", part)]
                if placeholder:  # a glob, or a word standing for one (PATH, DTYPE)
                    path = "/".join(parts[:placeholder[0]])
                if not path or commit in absent:
                    continue
                if not git_has(repo, f"{commit}^{{commit}}"):
                    absent.add(commit)
                    print(f"results_match: commit {commit} is not in this clone's history; "
                          "its pinned references are not checked")
                    continue
                problem = f"{page.relative_to(root)}: pins {commit}:{path}, which it does not hold"
                if not git_has(repo, f"{commit}:{path}") and problem not in problems:
                    problems.append(problem)
    return problems


def check(root, repo=REPO):
    with tempfile.TemporaryDirectory() as scratch:
        return (check_generated(root, Path(scratch)) + check_layout(root)
                + check_named_paths(root) + check_pinned(root, repo))


def self_test():
    """A copy of the repository's tools and results passes; each planted fault is found."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for part in ["book/results", "book/pages"]:
            shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("runs"))
        for part in ["book/plot_peers.py", "book/profile_tables.py", "book/record_lines.py",
                     "bench/compare_peers.py", "course.json"]:
            (root / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / part, root / part)
        for page in (root / "book/pages").glob("*.md"):
            page.write_text(PINNED.sub("", RESULTS_PATH.sub("", page.read_text())))
        assert check(root) == [], check(root)
        results = root / "book/results"

        # A number of the peer table changed by hand, and a chart left over.
        table = results / "peer_comparison.md"
        original = table.read_text()
        number = re.search(r"\d+\.\d", original).group(0)
        table.write_text(original.replace(number, number[:-1] + str((int(number[-1]) + 1) % 10), 1))
        (results / "peer_comparison-gone.svg").write_text("<svg/>\n")
        found = check(root)
        assert any("peer_comparison.md: not what book/plot_peers.py" in p for p in found), found
        assert any("peer_comparison-gone.svg: a chart" in p for p in found), found
        table.write_text(original)
        (results / "peer_comparison-gone.svg").unlink()

        # A profile case dropped from cases.tsv; a sweep summary edited.
        cases = results / "profile/cases.tsv"
        kept = cases.read_text()
        cases.write_text("\n".join(kept.splitlines()[:-1]) + "\n")
        summary = next((results / "sweep").glob("*.md"))
        summary.write_text(summary.read_text() + "\n")
        found = check(root)
        assert any("profile.md: not what" in p for p in found), found
        assert any(f"{summary.name}: not what bench/compare_peers.py" in p for p in found), found
        cases.write_text(kept)
        summary.write_text(summary.read_text()[:-1])

        # A result file pretty-printed; pages naming results that do not exist.
        record = results / "profile.json"
        kept = record.read_text()
        record.write_text(json.dumps(json.loads(kept), indent=1) + "\n")
        page = root / "book/pages/ch01-x.md"
        page.write_text("Data: `book/results/runs/2000-01-01-gone/`, and\n`book/results/"
                        "peer_comparison.json`.\n\n    tool --out book/results/written.json\n\n"
                        "Pinned: `git show 0123abc:book/results/runs/old/a.txt`.\n")
        found = check(root)
        assert any("profile.json: not in" in p for p in found), found
        assert [p for p in found if "names" in p] == [
            "book/pages/ch01-x.md: names book/results/runs/2000-01-01-gone/, which does not "
            "exist"], found
        record.write_text(kept)
        page.unlink()
        assert check(root) == []

        # Pinned references: one the commit holds, one it does not (where this clone has it).
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        if head:
            page.write_text(f"Held: `git show {head}:book/results_match.py`, "
                            f"`git ls-tree {head} book/pages/`, "
                            f"`git show {head}:book/pages/ch01-DTYPE.md`.\n"
                            f"Not held: `git show {head}:book/results/runs/2000-01-01-gone/a.txt`."
                            "\n")
            assert check_pinned(root) == [
                f"book/pages/ch01-x.md: pins {head}:book/results/runs/2000-01-01-gone/a.txt, "
                "which it does not hold"], check_pinned(root)
            page.unlink()
    print("results_match self-test: ok")


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return 0
    if argv:
        print(__doc__)
        return 2
    problems = check(REPO)
    for problem in problems:
        print("FAIL: " + problem)
    if not problems:
        print("results_match: every committed table and chart is made from its results, and "
              "every results path the pages name exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
