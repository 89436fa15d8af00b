#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reads the course manifest (course.json at the repository root) for the shell scripts and tests.

    course.py exercises               one line per exercise: NN slug chapter speed_threshold
                                      ("-" for an exercise graded on the CPU: no speed bar)
    course.py chapters                one line per chapter: NN slug
    course.py skeleton-ref            the git ref of the pristine skeletons: the tag
                                      normlab-skeleton (a student copy), else origin/HEAD (the
                                      course as cloned), else HEAD
    course.py check [ROOT]            the manifest agrees with the repository: each chapter has its
                                      folder, test and book page (whose anchor is {#chNN}), each
                                      exercise its skeleton and grader; no folder is left out;
                                      the chapter tables of README.md and book/pages/index.md
                                      and the exercise table of exercises/README.md list exactly
                                      the manifest's entries, in its order and words
    course.py labels CTEST BUILD      every label of a test registered in BUILD (as CTEST
                                      --show-only=json-v1 lists them) is in README.md's list
                                      of ctest labels (chNN and exNN stand for every number)
    course.py self-test               check and labels on a scratch copy with one defect
                                      planted at a time
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


def index_row(chapter):
    """book/pages/index.md's row for a chapter: its title, capitalised, links to its page."""
    title = chapter["title"][0].upper() + chapter["title"][1:]
    return [chapter["number"], f'\\ref ch{chapter["number"]} "{title}"', chapter["teaches"]]


def table_problem(path, got, want):
    """A problem naming path when its table rows got differ from want, giving want in full."""
    if got == want:
        return []
    return [f"{path}: the chapter table differs from course.json; it should read\n"
            + "\n".join(f"| {' | '.join(row)} |" for row in want)]


def problems_in(root):
    course = load(root)
    chapters = {c["number"]: c for c in course["chapters"]}
    problems = []
    for c in course["chapters"]:
        tag = f"ch{c['number']}"
        page = f"book/pages/{tag}-{c['slug']}.md"
        for path in (f"chapters/{c['number']}-{c['slug']}/CMakeLists.txt", f"tests/gpu/test_{tag}.cpp",
                     page):
            if not (root / path).is_file():
                problems.append(f"chapter {c['number']}: no {path}")
        if (root / page).is_file() and f"{{#{tag}}}" not in (root / page).read_text():
            problems.append(f"chapter {c['number']}: {page} has no anchor {{#{tag}}} for the "
                            "index's link")
    for e in course["exercises"]:
        name = f"ex{e['number']}-{e['slug']}"
        if e["chapter"] not in chapters:
            problems.append(f"exercise {e['number']}: chapter {e['chapter']} is not in the manifest")
        for path in [f"exercises/{name}/README.md", f"tests/graders/ex{e['number']}.cpp"] + \
                [f"exercises/{name}/{source}" for source in e["sources"]]:
            if not (root / path).is_file():
                problems.append(f"exercise {e['number']}: no {path}")
        if e.get("grader") == "cpu":
            if "speed_threshold" in e:
                problems.append(f"exercise {e['number']}: a CPU grader's exercise has no "
                                "speed_threshold")
        elif e.get("grader", "gpu") != "gpu":
            problems.append(f"exercise {e['number']}: grader is 'gpu' (the default) or 'cpu'")
        elif not 0 < e.get("speed_threshold", 0) < 100:
            problems.append(f"exercise {e['number']}: speed_threshold is not a % of the copy roof")
    listed = {f"{c['number']}-{c['slug']}" for c in course["chapters"]}
    for folder in sorted((root / "chapters").glob("[0-9][0-9]-*")):
        if folder.name not in listed:
            problems.append(f"chapters/{folder.name} is not in course.json")
    listed = {f"ex{e['number']}-{e['slug']}" for e in course["exercises"]}
    for folder in sorted((root / "exercises").glob("ex[0-9][0-9]-*")):
        if folder.name not in listed:
            problems.append(f"exercises/{folder.name} is not in course.json")

    problems += table_problem("README.md", table_rows((root / "README.md").read_text(), r"\d\d"),
                              [[c["number"], c["title"], c["teaches"]] for c in course["chapters"]])
    problems += table_problem("book/pages/index.md",
                              table_rows((root / "book/pages/index.md").read_text(), r"\d\d"),
                              [index_row(c) for c in course["chapters"]])
    want = [[f"`ex{e['number']}-{e['slug']}`",
             f"chapter {e['chapter']}, {chapters.get(e['chapter'], {}).get('title', '?')}"]
            for e in course["exercises"]]
    got = [row[:2] for row in table_rows((root / "exercises/README.md").read_text(), r"`ex\d\d-.*`")]
    if got != want:
        problems.append("exercises/README.md: the exercise table differs from course.json; its "
                        "first two columns should read\n"
                        + "\n".join(f"| {' | '.join(row)} |" for row in want))
    return problems


def listed_labels(readme):
    """The labels README.md's section "Tests" lists: the words in backquotes of its paragraph that
    begins "ctest labels"."""
    section = readme.split("\n## Tests\n", 1)[-1].split("\n## ", 1)[0]
    paragraph = re.search(r"^ctest labels.*?(?:\n\n|\Z)", section, re.S | re.M)
    return set(re.findall(r"`([a-z_]+(?:NN)?)`", paragraph.group(0))) if paragraph else set()


def label_problems(readme, used):
    """A problem for each label in used that README.md's list leaves out (ch04 is listed as chNN)."""
    listed = listed_labels(readme)
    missing = sorted({label for label in used if re.sub(r"\d\d$", "NN", label) not in listed})
    return [f"README.md: the ctest label '{label}' is used by a registered test but is not in the "
            "section \"Tests\"'s list of labels" for label in missing]


def registered_labels(ctest, build):
    """Every label of the tests registered in the build folder build."""
    listing = subprocess.run([ctest, "--test-dir", str(build), "--show-only=json-v1"],
                             capture_output=True, text=True, check=True)
    tests = json.loads(listing.stdout)["tests"]
    if not tests:
        raise SystemExit(f"course.py labels: {build} registers no tests")
    return {label for test in tests for p in test.get("properties", []) if p["name"] == "LABELS"
            for label in p["value"]}


def labels(ctest, build, root=ROOT):
    used = registered_labels(ctest, build)
    problems = label_problems((root / "README.md").read_text(), used)
    for problem in problems:
        print("FAILED:", problem)
    if not problems:
        print(f"README.md lists every one of the {len(used)} labels of the tests in {build}")
    return 1 if problems else 0


def check(root):
    problems = problems_in(root)
    for problem in problems:
        print("FAILED:", problem)
    if not problems:
        course = load(root)
        print(f"course.json: {len(course['chapters'])} chapters and {len(course['exercises'])} "
              "exercises, each with its files, the three tables in agreement")
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
        "a chapter's row changed in book/pages/index.md only":
            (lambda r: edit(r / "book/pages/index.md", "| 11 | \\ref ch11 \"FlashNorm: norm then linear\" |",
                            "| 11 | \\ref ch11 \"FlashNorm\" |"), "book/pages/index.md: the chapter table"),
        "a chapter left out of book/pages/index.md":
            (lambda r: edit(r / "book/pages/index.md", "| 12 |", "| x2 |"),
             "book/pages/index.md: the chapter table"),
        "a book page without the anchor the index links to":
            (lambda r: (r / "book/pages/ch06-residual-fusion.md").write_text("# 06\n"),
             "book/pages/ch06-residual-fusion.md has no anchor {#ch06}"),
        "a chapter folder not in the manifest":
            (lambda r: (r / "chapters/99-extra").mkdir(), "chapters/99-extra is not in course.json"),
        "a chapter without its book page":
            (lambda r: (r / "book/pages/ch03-warp-shuffle.md").unlink(),
             "chapter 03: no book/pages/ch03-warp-shuffle.md"),
        "an exercise without its grader":
            (lambda r: (r / "tests/graders/ex05.cpp").unlink(), "exercise 05: no tests/graders/ex05.cpp"),
        "a CPU-graded exercise with a speed bar":
            (lambda r: edit(r / "course.json", '"grader": "cpu"',
                            '"grader": "cpu", "speed_threshold": 5'),
             "a CPU grader's exercise has no speed_threshold"),
        "an exercise folder not in the manifest":
            (lambda r: (r / "exercises/ex99-extra").mkdir(), "exercises/ex99-extra is not in course.json"),
    }
    with tempfile.TemporaryDirectory() as scratch:
        def fresh():
            root = Path(scratch, "root")
            shutil.rmtree(root, ignore_errors=True)
            for path in ["course.json", "README.md", "exercises/README.md", "book/pages/index.md"]:
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(ROOT / path, root / path)
            course = load(root)
            for c in course["chapters"]:
                for path in (f"chapters/{c['number']}-{c['slug']}/CMakeLists.txt",
                             f"tests/gpu/test_ch{c['number']}.cpp"):
                    (root / path).parent.mkdir(parents=True, exist_ok=True)
                    (root / path).touch()
                (root / f"book/pages/ch{c['number']}-{c['slug']}.md").write_text(
                    f"# {c['number']} {{#ch{c['number']}}}\n")
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

    # Labels: the README's list covers what the tests use, numbered labels by their pattern.
    readme = (ROOT / "README.md").read_text()
    used = {"cpu", "gpu", "ch04", "ex12", "known_wrong"}
    assert label_problems(readme, used) == [], label_problems(readme, used)
    for label, listed_as in [("known_wrong", "`known_wrong`"), ("ch04", "`chNN`")]:
        found = label_problems(readme.replace(listed_as, "`elsewhere`"), used)
        assert any(f"'{label}'" in p for p in found), f"self-test: '{label}' unlisted not caught"
        print(f"caught: the label {label} left out of README.md's list")
    found = label_problems(readme, used | {"ch4x"})
    assert any("'ch4x'" in p for p in found), "self-test: a label no pattern covers not caught"
    print("caught: a label that no listed one or pattern covers")
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
            print(e["number"], e["slug"], e["chapter"], e.get("speed_threshold", "-"))
    elif command == "chapters":
        for c in course["chapters"]:
            print(c["number"], c["slug"])
    elif command == "skeleton-ref":
        return skeleton_ref()
    elif command == "check":
        return check(Path(argv[2]) if len(argv) > 2 else ROOT)
    elif command == "labels" and len(argv) == 4:
        return labels(argv[2], Path(argv[3]))
    elif command == "self-test":
        return self_test()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
