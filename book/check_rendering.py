#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks how the rendered book reads, for the faults a reader sees without a browser's help:

  marker     Markdown that leaked into the text as characters: `**`, `__word__` or a backtick
             in a page's text outside <pre>, <code> and code listings (Doxygen leaves
             **`code`** as two asterisks around the code, for one).
  list       a wrapped sentence read as a list: in a page's Markdown, a line that starts
             with `N. ` inside a paragraph (the line above is text, not an item of the same
             list), which Doxygen turns into a list and drops the number, or a lone
             lower-case `+ `, `- ` or `* ` item below text (`(main gave add` / `+ norm 2
             stages)`); and in the HTML, an <ol> of a single item (a real numbered list has
             two or more).
  table      a table of a page's text (Markdown's markdownTable, the doxtable of the
             generated fragments, any table in a page's textblock) that cannot scroll inside
             the content pane: neither it nor a wrapper inside the page's contents has
             overflow-x auto or scroll (an inline style, or a rule of a stylesheet the page
             links; for the table itself with display: block).

    check_rendering.py HTML_DIR [--markdown PATH ...]
    check_rendering.py --self-test

The Markdown checked is the pages Doxygen read: the .md files under the INPUT of the Doxyfile
beside HTML_DIR (Doxygen's OUTPUT_DIRECTORY), or the PATHs given (files or directories).
Prints every finding as `kind page: snippet` and exits 1 if there is one.
Python standard library only.
"""
import re
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr"}
BLOCK = {"p", "li", "td", "th", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "caption",
         "div", "table", "tr", "ul", "ol", "dl", "blockquote", "br", "hr"}
# Text that is code, not prose: Markdown markers there are the code's own characters.
CODE_TAGS = {"pre", "code", "script", "style", "tt", "kbd", "samp"}
CODE_CLASSES = {"fragment", "line", "memproto", "memname", "memItemLeft", "memItemRight",
                "memTemplParams", "memTemplItemLeft", "memTemplItemRight", "paramtype",
                "paramname", "mlabels", "memtitle",
                "entry"}  # the signatures of a class's list of all members
CODE_MARK = "\u2039code\u203a"  # what a <code> element reads as in the scanned text
MARKERS = [
    ("**", re.compile(r"\*\*")),
    ("__", re.compile(r"(?<![\w])__[^\s_](?:[^\n]*?[^\s_])?__(?![\w])")),
    ("`", re.compile(r"`")),
]
CONTENT_TABLE_CLASSES = {"markdownTable", "doxtable"}
ITEM = re.compile(r"^(\s*)(\d+\.|[-+*])(\s|$)")
FENCE = re.compile(r"^\s*(```|~~~)")


class Element:
    def __init__(self, tag, attrs):
        self.tag = tag
        attrs = dict((k, v or "") for k, v in attrs)
        self.classes = set(attrs.get("class", "").split())
        self.style = attrs.get("style", "")
        self.attrs = attrs
        self.items = 0  # <li> children of an <ol>
        self.text = []  # the text of an <ol>'s first item


class Page(HTMLParser):
    """One HTML page: its prose text, its one-item ordered lists, its tables with their
    ancestors, and the stylesheets it links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.prose = [""]
        self.ols = []
        self.tables = []
        self.stylesheets = []

    def in_code(self):
        return any(e.tag in CODE_TAGS or e.classes & CODE_CLASSES for e in self.stack)

    def handle_starttag(self, tag, attrs):
        element = Element(tag, attrs)
        if tag == "link" and "stylesheet" in element.attrs.get("rel", ""):
            self.stylesheets.append(element.attrs.get("href", ""))
        if tag in BLOCK:
            self.prose.append("")
        if tag == "code" and not self.in_code():
            self.prose[-1] += CODE_MARK
        if tag == "li":
            lists = [e for e in self.stack if e.tag in ("ol", "ul")]
            if lists and lists[-1].tag == "ol":
                lists[-1].items += 1
        if tag == "table":
            self.tables.append((element, list(self.stack)))
        if tag not in VOID:
            self.stack.append(element)
        if tag == "ol":
            self.ols.append(element)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1].tag == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in BLOCK:
            self.prose.append("")
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        lists = [e for e in self.stack if e.tag in ("ol", "ul")]
        if lists and lists[-1].tag == "ol" and lists[-1].items == 1:
            lists[-1].text.append(data)
        if not self.in_code():
            self.prose[-1] += data


def css_rules(text):
    """The (selectors, declarations) of a stylesheet's plain rules; @media and other at-rule
    blocks are left out (print rules do not make the screen scroll)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules, i = [], 0
    while True:
        brace = text.find("{", i)
        if brace < 0:
            return rules
        head = text[i:brace].strip()
        if head.startswith("@"):
            depth, j = 1, brace + 1
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            i = j
            continue
        end = text.find("}", brace)
        if end < 0:
            return rules
        declarations = {}
        for item in text[brace + 1:end].split(";"):
            if ":" in item:
                name, value = item.split(":", 1)
                declarations[name.strip().lower()] = value.replace("!important", "").strip().lower()
        rules.append(([s.strip() for s in head.split(",") if s.strip()], declarations))
        i = end + 1


def matches(selector, element):
    """Whether the last compound of a simple selector (tag, .class, tag.class.class) names
    the element; combinators before it are not followed."""
    last = re.split(r"[\s>+~]+", selector.strip())[-1]
    if not re.fullmatch(r"[A-Za-z0-9]*(\.[\w-]+)*", last) or not last:
        return False
    tag, *classes = last.split(".")
    return (not tag or tag.lower() == element.tag) and set(classes) <= element.classes


def scrolls(element, rules, itself):
    """Whether the element scrolls sideways: overflow-x auto or scroll, inline or by a rule;
    a table itself only where it is also display: block."""
    declared = {}
    for selectors, declarations in rules:
        if any(matches(s, element) for s in selectors):
            declared.update(declarations)
    for item in element.style.split(";"):
        if ":" in item:
            name, value = item.split(":", 1)
            declared[name.strip().lower()] = value.strip().lower()
    overflow = declared.get("overflow-x", declared.get("overflow", "").split(" ")[0])
    if overflow not in ("auto", "scroll"):
        return False
    return not itself or declared.get("display") in ("block", "inline-block")


def around(text, start, end, width=40):
    left = max(0, start - width)
    right = min(len(text), end + width)
    return ("…" if left else "") + " ".join(text[left:right].split()) + \
        ("…" if right < len(text) else "")


def check_page(path, root, stylesheets_cache):
    page = Page()
    page.feed(path.read_text(errors="replace"))
    page.close()
    name = str(path.relative_to(root))
    findings = []
    for text in page.prose:
        text = " ".join(text.split())
        for marker, pattern in MARKERS:
            m = pattern.search(text)  # one finding a paragraph and marker
            if m:
                findings.append(f"marker {name}: {marker} in '{around(text, m.start(), m.end())}'")
    for ol in page.ols:
        if ol.items == 1:
            text = " ".join("".join(ol.text).split())
            findings.append(f"list {name}: a one-item numbered list '{text[:70]}'")
    rules = []
    for href in page.stylesheets:
        css = (path.parent / href).resolve()
        if css not in stylesheets_cache:
            stylesheets_cache[css] = css_rules(css.read_text(errors="replace")) \
                if css.is_file() else []
        rules += stylesheets_cache[css]
    for table, ancestors in page.tables:
        in_text = any("textblock" in e.classes for e in ancestors)
        if not (table.classes & CONTENT_TABLE_CLASSES or in_text):
            continue
        inside = []
        for e in reversed(ancestors):  # the wrappers between the table and the page's contents
            if e.classes & {"contents", "textblock"} or e.attrs.get("id") == "doc-content":
                break
            inside.append(e)
        if scrolls(table, rules, True) or any(scrolls(e, rules, False) for e in inside):
            continue
        caption = " ".join(sorted(table.classes)) or "no class"
        findings.append(f"table {name}: a table ({caption}) that does not scroll inside the "
                        f"pane (no overflow-x: auto on it or a wrapper)")
    return findings


def markdown_sources(html_dir):
    """The .md files of the Doxyfile beside HTML_DIR's INPUT."""
    doxyfile = html_dir.parent / "Doxyfile"
    if not doxyfile.is_file():
        return []
    text = doxyfile.read_text(errors="replace").replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        m = re.match(r"\s*INPUT\s*=(.*)", line)
        if m:
            for item in m.group(1).split():
                item = Path(item.strip('"'))
                found += sorted(item.rglob("*.md")) if item.is_dir() else \
                    [item] if item.suffix == ".md" and item.is_file() else []
    return found


def wrapped_items(path):
    """Lines of a Markdown page that a wrapped sentence made list items. A line starting with
    `N. `, below a line of text, where no ordered list at that indent is open (an item at the
    same indent earlier, the list going on across blank lines while what follows them is
    indented under its items or is its next item); a list may follow a line of text where it
    starts at 1 after a line ending in a colon (`Steps:` then `1. ...`). And a line starting
    with `- `, `+ ` or `* ` and a lower-case word, below a line of text that does not end in a
    colon, where no such list is open and the item is its list's only one (`main gave add` /
    `+ norm 2 stages)`): a bullet list that a paragraph leads into has an item after it, or
    starts with a capital or a colon above."""
    findings = []
    lines = path.read_text(errors="replace").splitlines()
    fenced = None  # the fence or command that opened the code block we are in
    previous = ""  # the line above, blank when a paragraph starts
    after_blank = True
    open_lists = []  # the (indent, kind) of the lists open here, innermost last
    for number, line in enumerate(lines, 1):
        if fenced:
            if (fenced in ("```", "~~~") and FENCE.match(line) and fenced in line) or \
                    (fenced == "\\code" and "\\endcode" in line) or \
                    (fenced == "\\verbatim" and "\\endverbatim" in line):
                fenced = None
            continue
        fence = FENCE.match(line) or re.match(r"\s*(\\code|\\verbatim)\b", line)
        if fence:
            fenced = fence.group(1)
            previous = ""
            continue
        if not line.strip():
            previous, after_blank = "", True
            continue
        indent = len(line) - len(line.lstrip())
        m = ITEM.match(line)
        kind = ("ol" if m.group(2)[0].isdigit() else m.group(2)) if m else None
        if after_blank:  # a block at this indent ends the lists it is not indented under
            while open_lists and (open_lists[-1][0] > indent or
                                  (open_lists[-1][0] == indent and not m)):
                open_lists.pop()
        if m:
            listed = bool(open_lists) and open_lists[-1] == (indent, kind)
            text = previous and not previous.lstrip().startswith("|")
            if kind == "ol":
                starts = m.group(2) == "1." and previous.rstrip().endswith(":")
                wrapped = text and not listed and not starts
            else:
                wrapped = text and not listed and not previous.rstrip().endswith(":") and \
                    re.match(r"[a-z]", line[m.end():]) and alone(lines, number, indent, kind)
            if wrapped:
                what = "numbered" if kind == "ol" else "bulleted"
                findings.append(f"list {path}:{number}: a wrapped line read as a {what} "
                                f"list item: '{previous.strip()[-40:]}' / '{line.strip()[:50]}'")
            elif not listed:
                while open_lists and open_lists[-1][0] >= indent:
                    open_lists.pop()
                open_lists.append((indent, kind))
        previous, after_blank = line, False
    return findings


def alone(lines, number, indent, kind):
    """Whether the item on line `number` (1-based) has no next item in its list."""
    blank = False
    for line in lines[number:]:
        if not line.strip():
            blank = True
            continue
        depth = len(line) - len(line.lstrip())
        m = ITEM.match(line)
        if m and depth == indent:
            return (("ol" if m.group(2)[0].isdigit() else m.group(2)) != kind)
        if depth < indent or (blank and depth <= indent):
            return True
        blank = False
    return True


def check(html_dir, markdown=None):
    html_dir = Path(html_dir)
    findings, cache = [], {}
    pages = sorted(html_dir.rglob("*.html"))
    for path in pages:
        findings += check_page(path, html_dir, cache)
    sources = markdown_sources(html_dir) if markdown is None else [
        f for p in map(Path, markdown) for f in (sorted(p.rglob("*.md")) if p.is_dir() else [p])]
    for path in sources:
        findings += wrapped_items(path)
    return findings, len(pages), len(sources)


def self_test():
    """A made-up site with each fault once, and a page without any: each fault must be found,
    on its page, and nothing else."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        html = root / "html"
        html.mkdir()
        head = '<html><head><link href="doxygen.css" rel="stylesheet" type="text/css"/>{}</head>'
        body = '<body><div id="doc-content"><div class="contents"><div class="textblock">{}' \
               '</div></div></div></body></html>'
        extra = '<link href="extra.css" rel="stylesheet" type="text/css"/>'
        (html / "doxygen.css").write_text(".fragment { overflow-x: auto; }\n"
                                         "@media print { table { display: block; overflow: auto } }")
        (html / "extra.css").write_text("/* the fix */ table.markdownTable, table.doxtable "
                                        "{ display: block; overflow-x: auto; max-width: 100%; }")
        (html / "bold.html").write_text(head.format("") + body.format(
            "<p>Summing: **<code>dx = r · g</code>**.</p>"))
        (html / "under.html").write_text(head.format("") + body.format(
            "<p>The array is __shared__ memory.</p>"))
        (html / "tick.html").write_text(head.format("") + body.format(
            "<p>An unclosed `tick in the text.</p>"))
        (html / "one.html").write_text(head.format("") + body.format(
            "<ul><li>Occupancy: 30.6 warps an SM of<ol type=\"1\"><li>So the rows were not the "
            "cause.</li></ol></li></ul>"))
        (html / "wide.html").write_text(head.format("") + body.format(
            '<table class="markdownTable"><tr><td>1712 px</td></tr></table>'))
        (html / "fragment.html").write_text(head.format("") + body.format(
            '<table class="doxtable normlab-profile"><tr><td>ncu</td></tr></table>'))
        (html / "clean.html").write_text(head.format(extra) + body.format(
            "<p>Code keeps its own: <code>a ** b</code>, <code>__shared__</code>, "
            "<code>`x`</code>, and <b>bold</b> works.</p>"
            '<div class="fragment"><div class="line">char **argv; // `a` __x__</div></div>'
            "<pre>**not prose**</pre>"
            '<ol type="1"><li>one</li><li>two <ol><li>a</li><li>b</li></ol></li></ol>'
            '<table class="markdownTable"><tr><td>wide</td></tr></table>'
            '<table class="doxtable normlab-peers"><tr><td>wide</td></tr></table>'
            '<div style="overflow-x: auto"><table><tr><td>wrapped</td></tr></table></div>'))
        (html / "chrome.html").write_text(head.format("") + '<body><table class="memberdecls">'
                                          "<tr><td>x</td></tr></table></body></html>")
        md = root / "pages"
        md.mkdir()
        (md / "page.md").write_text(
            "A paragraph that wraps after the year\n2026. The sentence goes on.\n\n"
            "Steps:\n1. first\n   still the first\n2. second\n\n"
            "- a bullet that ends with chapter\n  8. and goes on\n\n"
            "```\ntext\n3. inside a fence\n```\n\n"
            "1. a loose list\n\n   its item's second paragraph\n\n       indented code\n"
            "2. goes on\n\nA paragraph after the list\n3. is no item of it.\n\n"
            "A sum that wraps before its add\n+ norm 2 stages).\n\n"
            "Bullets after text, and\n- lower-case items\n- two of them\n\n"
            "Text,\n- Upper-case item alone\n")
        (root / "Doxyfile").write_text(f"INPUT = {md} \\\n  {root / 'none'}\n")
        findings, pages, sources = check(html)
        assert (pages, sources) == (8, 1), (pages, sources)
        kinds = sorted(f.split(":")[0] for f in findings)
        expected = sorted([
            "marker bold.html",
            "marker under.html", "marker tick.html", "list one.html",
            "table wide.html", "table fragment.html",
            f"list {md / 'page.md'}", f"list {md / 'page.md'}", f"list {md / 'page.md'}",
            f"list {md / 'page.md'}"])
        assert kinds == expected, "\n".join(findings)
        assert any("wraps after the year' / '2026. The sentence goes on.'" in f
                   for f in findings), findings
        lines = sorted(int(f.split(":")[1]) for f in findings if f.startswith("list /"))
        assert lines == [2, 10, 25, 28], findings
        assert not any("clean.html" in f or "chrome.html" in f for f in findings), findings
    print("check_rendering self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    args = argv[1:]
    markdown = None
    if "--markdown" in args:
        at = args.index("--markdown")
        markdown, args = args[at + 1:], args[:at]
    if len(args) != 1 or not Path(args[0]).is_dir() or markdown == []:
        print(__doc__, file=sys.stderr)
        return 2
    findings, pages, sources = check(args[0], markdown)
    for line in findings:
        print(line)
    counts = {kind: sum(f.startswith(kind + " ") for f in findings)
              for kind in ("marker", "list", "table")}
    print(f"check_rendering: {pages} pages, {sources} Markdown sources; "
          + ", ".join(f"{n} {kind}" for kind, n in counts.items()))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
