#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks every link of the rendered book: each relative href, src or object data (Doxygen's
SVG images) names a file that exists, and each #fragment an id or name in the page it points
to. Links to other sites are not fetched (the check runs offline).

    check_links.py HTML_DIR
    check_links.py --self-test

Prints every broken link as `page: link (why)` and exits 1 if there is one.
Python standard library only.
"""
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    """The links and the anchors (id and name attributes) of one HTML file."""

    def __init__(self):
        super().__init__()
        self.links = []
        self.anchors = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.anchors.add(value)
            elif (name == "href" and tag in ("a", "link", "area")) or \
                    (name == "src" and tag in ("img", "script", "iframe")) or \
                    (name == "data" and tag == "object"):
                self.links.append(value)


def parse(path):
    page = Page()
    page.feed(path.read_text(errors="replace"))
    return page


def broken_links(root):
    pages = {path.resolve(): parse(path) for path in sorted(root.rglob("*.html"))}
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            where = f"{path.relative_to(root.resolve())}: {link}"
            if not target.exists():
                broken.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                anchors = pages[target].anchors if target in pages else parse(target).anchors
                if unquote(parts.fragment) not in anchors:
                    broken.append(f"{where} (no anchor #{parts.fragment})")
    return broken, len(pages)


def self_test():
    """A tiny site with one good and three broken links: the check must find exactly those."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "a.html").write_text('<a href="b.html#here">ok</a><a href="b.html#gone">x</a>'
                                     '<a href="missing.html">x</a><img src="pic.svg"/>'
                                     '<object type="image/svg+xml" data="fig.svg"></object>'
                                     '<a href="https://example.org/">external</a>')
        (root / "b.html").write_text('<h1 id="here">B</h1><a href="a.html">back</a>')
        broken, count = broken_links(root)
        assert count == 2, count
        assert sorted(broken) == ["a.html: b.html#gone (no anchor #gone)",
                                  "a.html: fig.svg (no such file)",
                                  "a.html: missing.html (no such file)",
                                  "a.html: pic.svg (no such file)"], broken
    print("check_links self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print(__doc__, file=sys.stderr)
        return 2
    broken, count = broken_links(Path(argv[1]))
    for line in broken:
        print(line)
    print(f"check_links: {count} pages, {len(broken)} broken links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
