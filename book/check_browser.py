#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Loads every page of the rendered book in headless Chromium, 1280 px wide, and checks what a
reader sees once the page's scripts and MathJax have run:

  table      a table wider than the content pane (Doxygen's #doc-content) that does not scroll
             sideways inside it: it, or its content, runs past the pane's right edge and no
             element between it and the pane has overflow-x auto or scroll
  code       the same for a code block (<pre>, Doxygen's div.fragment)
  overflow   the same for anything else in the page's contents (an image, a formula, a word)
  image      an image the browser could not show: an <img> loaded with no pixels, an <object>
             (Doxygen's SVG figures) with no document or one that is not an SVG drawing
  math       a formula left as TeX source (MathJax missing or not run on it), or one MathJax
             could not typeset (a TeX error)

    check_browser.py HTML_DIR [PAGE.html ...]     check every page (or the PAGEs named)
    check_browser.py --screenshot OUT_DIR HTML_DIR PAGE.html ... [--first-screen]
    check_browser.py --self-test

--screenshot writes OUT_DIR/NAME.png of each PAGE at 1280 px wide: the whole page (the content
pane stretched to its full height), or the first 1280 x 800 screen with --first-screen; then
shrinks each file with pngquant and optipng where they are installed (Debian: apt-get install
pngquant optipng). The book's screenshots are made with

    python3 book/check_browser.py --screenshot book/images/screens build/default/book/html \\
        ch08.html ch10.html ch13.html

Prints every finding as `kind page: detail` and exits 1 if there is one. Exits 77 (which CTest
reads as skipped) when no Chromium is installed (Debian: apt-get install chromium, which
scripts/deps.sh installs; or name the program in $CHROMIUM). Python standard library only;
Chromium is driven through its DevTools protocol over a pipe (--remote-debugging-pipe).
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77
WIDTH, HEIGHT = 1280, 800
PAGE_TIMEOUT = 60.0

# Runs in the page once it has loaded: waits for MathJax and the images, then returns the
# findings as [kind, detail] pairs.
CHECK_JS = r"""
(async () => {
  if (window.MathJax && MathJax.Hub && MathJax.Hub.Register) {
    // Each wait on its own: a hook that returns the queue's callback waits on itself.
    await new Promise(done => MathJax.Hub.Register.StartupHook("End", () => { done(); }));
    await new Promise(done => MathJax.Hub.Queue(() => { done(); }));
  }
  await Promise.all([...document.images].map(img => img.complete ? null :
      new Promise(done => { img.addEventListener("load", done); img.addEventListener("error", done); })));
  const findings = [];
  const say = (kind, element, detail) => {
    const text = (detail || element.textContent || "").replace(/\s+/g, " ").trim();
    findings.push([kind, `<${element.tagName.toLowerCase()}> ${text.slice(0, 70)}`]);
  };
  const pane = document.getElementById("doc-content") || document.documentElement;
  const contents = pane.querySelector("div.contents") || document.body;
  const paneRight = pane.getBoundingClientRect().left + pane.clientWidth;
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const kindOf = el => el.closest("table") ? "table"
                     : el.closest("pre, div.fragment") ? "code" : "overflow";
  // The outermost element whose box or content reaches past the pane's right edge, where no
  // element between it and the pane scrolls sideways.
  const walk = el => {
    if (el !== contents && scrolls(el)) {
      if (el.getBoundingClientRect().right > paneRight + 1) say(kindOf(el), el);
      return;
    }
    const box = el.getBoundingClientRect();
    const spills = el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 &&
                   getComputedStyle(el).overflowX === "visible" &&
                   box.left + el.scrollWidth > paneRight + 1;
    if (el !== contents && (box.right > paneRight + 1 || spills)) {
      const inner = [...el.children].find(child => child.getBoundingClientRect().right > paneRight + 1);
      if (!inner || el.matches("table, pre, div.fragment")) { say(kindOf(el), el); return; }
    }
    for (const child of el.children) walk(child);
  };
  walk(contents);
  for (const img of document.images) {
    if (img.complete && img.naturalWidth === 0) say("image", img, img.getAttribute("src"));
  }
  for (const obj of document.querySelectorAll("object[data]")) {
    const doc = obj.contentDocument;
    const root = doc && doc.documentElement;
    const svg = !/\.svg$/i.test(obj.getAttribute("data")) ||
                (root && root.tagName.toLowerCase() === "svg");
    if (!root || !svg) say("image", obj, obj.getAttribute("data"));
  }
  const source = document.createTreeWalker(contents, NodeFilter.SHOW_TEXT, {
    acceptNode: node => node.parentElement.closest("pre, code, script, style, div.fragment")
                        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT });
  for (let node; (node = source.nextNode());) {
    if (/\\\(|\\\[/.test(node.textContent)) say("math", node.parentElement, "TeX source: " + node.textContent);
  }
  const failed = el => el && (el.type === "merror" || (el.data || []).some(failed));
  if (window.MathJax && MathJax.Hub && MathJax.Hub.getAllJax) {
    for (const jax of MathJax.Hub.getAllJax()) {
      if (failed(jax.root)) say("math", jax.SourceElement().parentElement, "TeX error: " + jax.originalText);
    }
  }
  for (const error of document.querySelectorAll(".MathJax_Error")) say("math", error);
  return findings;
})()
"""


def find_chromium():
    for name in [os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"]:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """One headless Chromium and one tab, driven over the DevTools pipe (fds 3 and 4)."""

    def __init__(self, program):
        self.profile = tempfile.mkdtemp(prefix="normlab-chromium-")
        to_browser, self.commands = os.pipe()
        self.events, from_browser = os.pipe()
        args = [program, "--headless", "--remote-debugging-pipe", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--allow-file-access-from-files", f"--user-data-dir={self.profile}",
                f"--window-size={WIDTH},{HEIGHT}", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox

        def wire():
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(args, preexec_fn=wire, pass_fds=(3, 4),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self.buffer = b""
        self.next_id = 0
        self.pending = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.resize(HEIGHT)

    def close(self):
        self.process.kill()
        self.process.wait()
        os.close(self.commands)
        os.close(self.events)
        shutil.rmtree(self.profile, ignore_errors=True)

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.events], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self.events, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False, timeout=PAGE_TIMEOUT):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self.receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.pending.append(reply)

    def wait_for(self, event, timeout=PAGE_TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            while self.pending:
                if self.pending.pop(0).get("method") == event:
                    return
            self.pending.append(self.receive(deadline))

    def resize(self, height):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path):
        self.pending.clear()
        self.call("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=True)
        self.wait_for("Page.loadEventFired")

    def check(self, path):
        self.open(path)
        return self.evaluate(CHECK_JS)

    def screenshot(self, path, out, first_screen):
        self.open(path)
        self.evaluate(CHECK_JS)  # MathJax and images done
        height = HEIGHT
        if not first_screen:
            height = self.evaluate("""(() => {
                const pane = document.getElementById("doc-content") || document.documentElement;
                return Math.ceil(pane.getBoundingClientRect().top + pane.scrollHeight
                                 + (document.getElementById("nav-path") || {offsetHeight: 0}).offsetHeight);
            })()""")
            self.resize(max(HEIGHT, height))
            self.evaluate("new Promise(done => requestAnimationFrame(() => setTimeout(done, 200)))")
        shot = self.call("Page.captureScreenshot", {"format": "png"}, session=True)
        Path(out).write_bytes(base64.b64decode(shot["data"]))
        self.resize(HEIGHT)


def pages_of(html_dir, names):
    html_dir = Path(html_dir)
    if names:
        return [html_dir / name for name in names]
    return sorted(p for p in html_dir.glob("*.html"))


def check(html_dir, names, program):
    browser = Browser(program)
    findings = []
    try:
        pages = pages_of(html_dir, names)
        for page in pages:
            for kind, detail in browser.check(page):
                findings.append(f"{kind} {page.name}: {detail}")
    finally:
        browser.close()
    return len(pages), findings


def screenshots(out_dir, html_dir, names, first_screen, program):
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    browser = Browser(program)
    written = []
    try:
        for page in pages_of(html_dir, names):
            out = out_dir / (page.stem + ".png")
            browser.screenshot(page, out, first_screen)
            written.append(out)
    finally:
        browser.close()
    # Fewer colours (the pages use a few dozen), then the smallest lossless encoding; each
    # step only where its program is installed. pngquant keeps a file it cannot shrink.
    if shutil.which("pngquant"):
        subprocess.run(["pngquant", "--force", "--skip-if-larger", "--speed", "1", "--ext", ".png",
                        *map(str, written)], check=False)
    if shutil.which("optipng"):
        subprocess.run(["optipng", "-quiet", "-o2", "-strip", "all", *map(str, written)], check=True)
    for out in written:
        print(f"check_browser: wrote {out} ({out.stat().st_size // 1024} KiB)")


# A made-up site for the self-test: each page's findings, by kind.
SELF_TEST_PAGES = {
    "wide_table.html": ("<table class='markdownTable'><tr><td>" + "w" * 400 + "</td></tr></table>",
                        ["table"]),
    "scrolling_table.html": ("<table class='markdownTable'><tr><td>" + "w" * 400
                             + "</td></tr></table>", []),
    "narrow_table.html": ("<table class='doxtable'><tr><td>a</td><td>b</td></tr></table>", []),
    "wide_code.html": ("<pre>" + "x" * 400 + "</pre><div class='fragment'><div class='line'>"
                       + "y" * 400 + "</div></div>", ["code", "code"]),
    "wide_word.html": ("<p>" + "z" * 400 + "</p>", ["overflow"]),
    "images.html": ("<img src='present.png'><img src='absent.png'>"
                    "<object type='image/svg+xml' data='present.svg'></object>"
                    "<object type='image/svg+xml' data='absent.svg'></object>"
                    "<object type='image/svg+xml' data='broken.svg'></object>",
                    ["image", "image", "image"]),
    "tex_source.html": ("<p>the norm \\(x^2\\) in prose</p><pre>\\(kept\\) in code</pre>", ["math"]),
}


def self_test(program):
    import struct
    import zlib
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        shutil.copy(Path(__file__).with_name("normlab.css"), site / "normlab.css")
        # A 1 x 1 PNG, written out rather than committed.
        def chunk(kind, data):
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data)))
        (site / "present.png").write_bytes(
            b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0\0")) + chunk(b"IEND", b""))
        (site / "present.svg").write_text(
            "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>")
        (site / "broken.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'><g></svg>")
        for name, (body, _) in SELF_TEST_PAGES.items():
            css = "" if name.startswith("wide_table") else "<link href='normlab.css' rel='stylesheet'>"
            (site / name).write_text(
                f"<!DOCTYPE html><html><head>{css}<style>body {{ margin: 0 }} "
                "#doc-content { width: 900px; height: 600px; overflow: auto }</style></head>"
                f"<body><div id='doc-content'><div class='contents'>{body}</div></div></body></html>")
        _, findings = check(site, list(SELF_TEST_PAGES), program)
    failures = 0
    for name, (_, expected) in SELF_TEST_PAGES.items():
        got = sorted(f.split(" ", 1)[0] for f in findings if f.split(" ")[1] == name + ":")
        if got != sorted(expected):
            failures += 1
            print(f"FAILED: {name}: expected {sorted(expected)}, found {got}")
            for f in findings:
                if f.split(" ")[1] == name + ":":
                    print("   ", f)
    if failures:
        return 1
    print(f"check_browser self-test: {len(SELF_TEST_PAGES)} made-up pages, "
          f"{len(findings)} findings, each where it was planted")
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    program = find_chromium()
    if program is None:
        print("check_browser: SKIPPED, no Chromium installed (apt-get install chromium, "
              "or scripts/deps.sh; or set $CHROMIUM)")
        return SKIP
    if argv[0] == "--self-test":
        return self_test(program)
    if argv[0] == "--screenshot":
        first_screen = "--first-screen" in argv
        args = [a for a in argv[1:] if a != "--first-screen"]
        if len(args) < 3:
            print(__doc__)
            return 2
        screenshots(args[0], args[1], args[2:], first_screen, program)
        return 0
    count, findings = check(argv[0], argv[1:], program)
    for finding in findings:
        print(finding)
    print(f"check_browser: {count} pages at {WIDTH} px, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
