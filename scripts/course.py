#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads the course manifest (course.json at the repository root) for the shell scripts and tests.

    course.py exercises               one line per exercise: NN slug chapter speed_threshold
    course.py chapters                one line per chapter: NN slug
    course.py skeleton-ref            the git ref of the pristine skeletons: the tag
                                      normlab-skeleton (a student copy), else origin/HEAD (the
                                      course as cloned), else HEAD
    course.py check [ROOT]            the manifest agrees with the repository: each chapter has its
                                      folder, test and book page, each exercise its skeleton and
                                      grader; no folder is left out; the chapter table of
                                      README.md and the exercise table of exercises/README.md
                                      list exactly the manifest's entries, in its order and words
    course.py self-test               check on a scratch copy with one defect planted at a time
Python standard library only.
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load(root=ROOT):
    return json.loads((root / "course.json").read_text())


def table_rows(text, first_cell):
    """The cells of every Markdown table row whose first cell matches first_cell."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if re.fullmatch(first_cell, cells[0]):
            rows.append(cells)
    return rows


def problems_in(root):
    course = load(root)
    chapters = {c["number"]: c for c in course["chapters"]}
    problems = []
    for c in course["chapters"]:
        tag = f"ch{c['number']}"
        for path in (f"chapters/{c['number']}-{c['slug']}/CMakeLists.txt", f"tests/gpu/test_{tag}.cpp",
                     f"book/pages/{tag}-{c['slug']}.md"):
            if not (root / path).is_file():
                problems.append(f"chapter {c['number']}: no {path}")
    for e in course["exercises"]:
        name = f"ex{e['number']}-{e['slug']}"
        if e["chapter"] not in chapters:
            problems.append(f"exercise {e['number']}: chapter {e['chapter']} is not in the manifest")
        for path in [f"exercises/{name}/README.md", f"tests/graders/ex{e['number']}.cpp"] + \
                [f"exercises/{name}/{source}" for source in e["sources"]]:
            if not (root / path).is_file():
                problems.append(f"exercise {e['number']}: no {path}")
        if not 0 < e["speed_threshold"] < 100:
            problems.append(f"exercise {e['number']}: speed_threshold is not a % of the copy roof")
    listed = {f"{c['number']}-{c['slug']}" for c in course["chapters"]}
    for folder in sorted((root / "chapters").glob("[0-9][0-9]-*")):
        if folder.name not in listed:
            problems.append(f"chapters/{folder.name} is not in course.json")
    listed = {f"ex{e['number']}-{e['slug']}" for e in course["exercises"]}
    for folder in sorted((root / "exercises").glob("ex[0-9][0-9]-*")):
        if folder.name not in listed:
            problems.append(f"exercises/{folder.name} is not in course.json")

    want = [[c["number"], c["title"], c["teaches"]] for c in course["chapters"]]
    got = table_rows((root / "README.md").read_text(), r"\d\d")
    if got != want:
        problems.append("README.md: the chapter table differs from course.json; it should read\n"
                        + "\n".join(f"| {' | '.join(row)} |" for row in want))
    want = [[f"`ex{e['number']}-{e['slug']}`",
             f"chapter {e['chapter']}, {chapters.get(e['chapter'], {}).get('title', '?')}"]
            for e in course["exercises"]]
    got = [row[:2] for row in table_rows((root / "exercises/README.md").read_text(), r"`ex\d\d-.*`")]
    if got != want:
        problems.append("exercises/README.md: the exercise table differs from course.json; its "
                        "first two columns should read\n"
                        + "\n".join(f"| {' | '.join(row)} |" for row in want))
    return problems


def check(root):
    problems = problems_in(root)
    for problem in problems:
        print("FAILED:", problem)
    if not problems:
        course = load(root)
        print(f"course.json: {len(course['chapters'])} chapters and {len(course['exercises'])} "
              "exercises, each with its files, both tables in agreement")
    return 1 if problems else 0


def self_test():
    """Each planted defect must be reported, the untouched copy must pass."""
    def edit(path, old, new):
        text = path.read_text()
        assert old in text, f"self-test: {old!r} not in {path}"
        path.write_text(text.replace(old, new, 1))

    defects = {
        "a chapter's title changed in README.md only":
            (lambda r: edit(r / "README.md", "| 04 | fused single pass, float4 |",
                            "| 04 | fused, float4 |"), "README.md: the chapter table"),
        "a chapter left out of README.md":
            (lambda r: edit(r / "README.md", "| 01 |", "| x1 |"), "README.md: the chapter table"),
        "an exercise row for another chapter":
            (lambda r: edit(r / "exercises/README.md", "chapter 04,", "chapter 03,"),
             "exercises/README.md"),
        "a chapter folder not in the manifest":
            (lambda r: (r / "chapters/99-extra").mkdir(), "chapters/99-extra is not in course.json"),
        "a chapter without its book page":
            (lambda r: (r / "book/pages/ch03-warp-shuffle.md").unlink(),
             "chapter 03: no book/pages/ch03-warp-shuffle.md"),
        "an exercise without its grader":
            (lambda r: (r / "tests/graders/ex05.cpp").unlink(), "exercise 05: no tests/graders/ex05.cpp"),
        "an exercise folder not in the manifest":
            (lambda r: (r / "exercises/ex99-extra").mkdir(), "exercises/ex99-extra is not in course.json"),
    }
    with tempfile.TemporaryDirectory() as scratch:
        def fresh():
            root = Path(scratch, "root")
            shutil.rmtree(root, ignore_errors=True)
            for path in ["course.json", "README.md", "exercises/README.md"]:
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / path, root / path)
            course = load(root)
            for c in course["chapters"]:
                for path in (f"chapters/{c['number']}-{c['slug']}/CMakeLists.txt",
                             f"tests/gpu/test_ch{c['number']}.cpp",
                             f"book/pages/ch{c['number']}-{c['slug']}.md"):
                    (root / path).parent.mkdir(parents=True, exist_ok=True)
                    (root / path).touch()
            for e in course["exercises"]:
                name = f"ex{e['number']}-{e['slug']}"
                for path in [f"exercises/{name}/README.md", f"tests/graders/ex{e['number']}.cpp"] + \
                        [f"exercises/{name}/{source}" for source in e["sources"]]:
                    (root / path).parent.mkdir(parents=True, exist_ok=True)
                    (root / path).touch()
            return root

        assert problems_in(fresh()) == [], problems_in(fresh())
        for name, (plant, expected) in defects.items():
            root = fresh()
            plant(root)
            found = problems_in(root)
            assert any(expected in p for p in found), f"self-test: '{name}' not caught: {found}"
            print(f"caught: {name}")
    print("course.py self-test passed")
    return 0


def skeleton_ref():
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    for ref in ["refs/tags/normlab-skeleton", "refs/remotes/origin/HEAD", "HEAD"]:
        if git("rev-parse", "-q", "--verify", ref + "^{commit}").returncode == 0:
            print(ref)
            return 0
    print("course.py: no git history to take the pristine skeletons from", file=sys.stderr)
    return 1


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    course = load()
    if command == "exercises":
        for e in course["exercises"]:
            print(e["number"], e["slug"], e["chapter"], e["speed_threshold"])
    elif command == "chapters":
        for c in course["chapters"]:
            print(c["number"], c["slug"])
    elif command == "skeleton-ref":
        return skeleton_ref()
    elif command == "check":
        return check(Path(argv[2]) if len(argv) > 2 else ROOT)
    elif command == "self-test":
        return self_test()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
