#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The lesson pages' sizes: words, snippets and their lengths, figures and the idea figure, for
every chapter's page (book/pages/chNN-*.md), held to a lesson's bounds.

    python3 book/page_stats.py            print the table, the bounds beside it
    python3 book/page_stats.py --check    and fail (exit 1) where a page is over GOAL_WORDS
                                          words, shows a snippet over GOAL_SNIPPET_LINES lines
                                          or one that is missing, or lacks an idea figure
    python3 book/page_stats.py --self-test

A snippet's length is the number of lines between its two [marker] lines."""
import argparse
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL_WORDS = 2500
GOAL_SNIPPET_LINES = 80
SNIPPET = re.compile(r"^\\snippet\s+(\S+)\s+(\S+)", re.MULTILINE)
IMAGE = re.compile(r"\\image\s+html\s+(\S+)")


def snippet_lines(root, path, marker):
    """Lines between the two lines that hold [marker] in root/path, or None when not found."""
    try:
        lines = (root / path).read_text().splitlines()
    except OSError:
        return None
    at = [i for i, line in enumerate(lines) if f"[{marker}]" in line]
    return at[1] - at[0] - 1 if len(at) >= 2 else None


def stats(root, page):
    text = page.read_text()
    snippets = []
    for path, marker in SNIPPET.findall(text):
        snippets.append((f"{path} {marker}", snippet_lines(root, path, marker)))
    number = page.name[2:4]
    images = IMAGE.findall(text)
    return {"words": len(text.split()), "snippets": snippets, "images": len(images),
            "idea": f"ch{number}_idea.svg" in images}


def pages(root):
    return sorted((root / "book" / "pages").glob("ch[0-9][0-9]-*.md"))


def table(root):
    print(f"{'page':28} {'words':>6} {'snippets':>8} {'longest':>7} {'figures':>7}  idea")
    for page in pages(root):
        s = stats(root, page)
        longest = max((n for _, n in s["snippets"] if n is not None), default=0)
        print(f"{page.name:28} {s['words']:>6} {len(s['snippets']):>8} {longest:>7} "
              f"{s['images']:>7}  {'yes' if s['idea'] else 'NO'}")
    print(f"goal of a lesson: at most {GOAL_WORDS} words, no snippet over {GOAL_SNIPPET_LINES} "
          f"lines, an idea figure")


def check(root):
    problems = []
    for page in pages(root):
        s = stats(root, page)
        if s["words"] > GOAL_WORDS:
            problems.append(f"{page.name}: {s['words']} words, over {GOAL_WORDS}")
        for name, lines in s["snippets"]:
            if lines is None:
                problems.append(f"{page.name}: snippet {name} not found")
            elif lines > GOAL_SNIPPET_LINES:
                problems.append(f"{page.name}: snippet {name} is {lines} lines, over "
                                f"{GOAL_SNIPPET_LINES}")
        if not s["idea"]:
            problems.append(f"{page.name}: no idea figure (\\image html {page.name[:4]}_idea.svg)")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "book" / "pages").mkdir(parents=True)
        (root / "src.cpp").write_text("a\n// [k]\n1\n2\n3\n// [k]\n")
        page = root / "book" / "pages" / "ch01-x.md"
        page.write_text("# 01 {#ch01}\n\\image html ch01_idea.svg\n\\snippet src.cpp k\nword\n")
        s = stats(root, page)
        assert s["snippets"] == [("src.cpp k", 3)] and s["idea"] and s["words"] == 10, s
        assert check(root) == [], check(root)
        # Each fault is found: a page over the words, a missing snippet, one too long, no idea
        # figure.
        (root / "long.cpp").write_text("// [k]\n" + "x\n" * (GOAL_SNIPPET_LINES + 1) + "// [k]\n")
        page.write_text(page.read_text() + "w " * GOAL_WORDS + "\n\\snippet src.cpp gone\n"
                        "\\snippet long.cpp k\n")
        found = check(root)
        assert any(f"words, over {GOAL_WORDS}" in p for p in found), found
        assert any("snippet src.cpp gone not found" in p for p in found), found
        too_long = f"snippet long.cpp k is {GOAL_SNIPPET_LINES + 1} lines"
        assert any(too_long in p for p in found), found
        page.write_text("# 01\n\\snippet src.cpp k\n")
        assert any("no idea figure" in p for p in check(root))
    print("page_stats self-test: ok")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true")
    group.add_argument("--self-test", action="store_true")
    args = parser.parse_args(argv)
    if args.self_test:
        self_test()
        return 0
    table(REPO)
    if args.check:
        problems = check(REPO)
        for problem in problems:
            print("FAIL: " + problem)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
