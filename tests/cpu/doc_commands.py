#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every shell command that README.md, exercises/README.md and CONTRIBUTING.md show, tested.

Which text is a command
  - Every line of a fenced block whose info string is sh, bash, shell or console (console: only
    the lines that start with "$ ", the prompt removed; the others are output).
  - A line of an unlabelled fenced block or of an indented code block (four spaces deeper than
    the text around it, after a blank line) when it starts with a command word (below).
  - An inline `code` span (a span broken over two lines is joined with a space, as Markdown
    shows it) when it starts with a command word.
  A command word is one of COMMAND_WORDS (cmake, ctest, pip, python3, normlab, bash, git, ...)
  or a path to run: scripts/NAME, build/NAME, .ci/NAME or ./NAME, after any VAR=value.
  Fenced blocks of another language (python, cmake) are not shell. In a command, a word that
  starts with "#" outside quotes starts a comment, which is not part of the command; a leading
  "!" (a notebook cell's shell escape) is removed; a line that ends in "\\" continues on the
  next one. A span that is one command word alone (`apt-get`, `nvidia-smi`) is not a command:
  it names a program. Nor is a span that starts with an option (`--help`): it names an option
  of the command span before it in the paragraph, and is checked as that command's (not listed
  in the manifest).
  Each page's commands are counted once each, in the order the page first shows them.

The manifest (tests/cpu/doc_commands.txt) lists each page's commands under [PAGE], one a line:
    TREATMENT: COMMAND
  with TREATMENT one of
    run CODE [with KEY=VALUE, ...] [(NOTE)]
        needs no GPU and finishes within RUN_TIMEOUT seconds: run exactly as written by bash in
        a fresh clone of the repository (HEAD, then the working tree's uncommitted and new
        files over it, and .deps/ linked where the checkout has one, as scripts/deps.sh would
        have installed it; the clone is reset and cleaned before each command), where it must
        exit with CODE. CUDA_VISIBLE_DEVICES is empty: every machine runs it as one without a
        GPU would, so a GPU machine expects the same code.
    check [with KEY=VALUE, ...] [(NOTE)]
        needs a GPU, a build, the network or root, or takes longer: not run.
  Every command, run or check, has the names it uses checked: the scripts and files it names
  exist (scripts run directly are executable), its CMake presets are in CMakePresets.json
  (configure, build, test or workflow, by the cmake/ctest mode), its build targets are made by
  add_executable/add_library/add_custom_target or normlab_add_chapter in the CMake files, a
  build/PRESET/... path names a configure preset's binary folder, a source folder and a target,
  its ctest labels are set in the CMake files (chNN/exNN: the chapters and exercises of
  course.json), its -DVAR is CMake's or the project's, each --option is found in the usage or
  option parsing of the script or program it is given to (a script that runs the normlab
  program: in either), and the words that are names are found (normlab's and a Python script's
  subcommand, scripts/test's workflow preset, scripts/grade's exercise numbers). A program the
  checker does not know is a failure: teach it in EXTERNAL_PROGRAMS or Checker.simple.

Placeholders: a word of capitals such as DIR, NN, FILE, OUT, and <...> such as
<this repository>. "with KEY=VALUE" substitutes them (whole words; VALUE {clone} is the path of
the clone the command runs in, {tmp} a fresh empty folder outside it) before the command is run
or checked. Left in a checked command, a placeholder inside a path matches any text (NN: two
digits) and a placeholder word is not checked.

The test fails when a page shows a command the manifest lacks, the manifest has one that page
no longer shows, a run command exits with another code or runs too long, or a check finds a
name missing; each failure names the page, the command and what to do.

  doc_commands.py                   the test (CTest doc_commands)
  doc_commands.py --no-run          the checks alone
  doc_commands.py --print-manifest  the manifest as the pages now ask it, treatments kept
  doc_commands.py --diff            how the committed manifest differs from that (exit 1 if it does)
  doc_commands.py --write-manifest  write it; new commands come as "check (new)": decide each
  doc_commands.py --self-test       the extraction rule on a page of every form, then every kind
                                    of failure provoked (CTest doc_commands_self_test)
  --pages-root DIR                  the pages and the manifest from DIR (a copy to try edits on)
"""
import argparse
import difflib
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PAGES = ("README.md", "exercises/README.md", "CONTRIBUTING.md")
MANIFEST = "tests/cpu/doc_commands.txt"
RUN_TIMEOUT = 60

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
COMMAND_WORDS = {"bash", "sh", "cmake", "ctest", "pip", "pip3", "python", "python3", "normlab",
                 "git", "cd", "export", "sudo", "apt-get", "ninja", "nvidia-smi"}
COMMAND_PATH = re.compile(r"(?:scripts|build|\.ci|\.)/[\w.*-]")
ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=\S*")  # VAR=value before a command
# Programs whose arguments are not the repository's to check.
EXTERNAL_PROGRAMS = {"git", "cd", "pip", "pip3", "sudo", "apt-get", "nvidia-smi"}

MANIFEST_HEADER = """\
# The shell commands README.md, exercises/README.md and CONTRIBUTING.md show, page by page, each
# with its treatment; tests/cpu/doc_commands.py (its docstring gives the rules) tests them.
#   run CODE [with KEY=VALUE, ...]: run in a fresh clone, must exit with CODE (no GPU, quick)
#   check [with KEY=VALUE, ...]: not run; the scripts, presets, targets, options and paths it
#     names must exist
# A changed page fails the test until this file follows it:
#   python3 tests/cpu/doc_commands.py --diff, then --write-manifest and decide each "(new)".
"""
ENTRY = re.compile(r"^(?P<kind>run (?P<code>\d+)|check)(?: with (?P<subs>[^():]+?))?"
                   r"(?: \((?P<note>[^()]*)\))?: (?P<command>.+)$")


# ---- Extraction ---------------------------------------------------------------------------

def strip_comment(line):
    """The line without a shell comment: "#" starting a word, outside quotes."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
        i += 1
    return line.rstrip()


def starts_with_command_word(text):
    words = text.split()
    while words and ASSIGNMENT.fullmatch(words[0]):
        words.pop(0)
    return bool(words) and (words[0] in COMMAND_WORDS or bool(COMMAND_PATH.match(words[0])))


def block_commands(lines, language):
    """(line, command) for the commands of a code block; lines are (number, text)."""
    found = []
    pending = None
    for number, raw in lines:
        text = raw.strip()
        if language == "console":
            if pending is None and not text.startswith("$ "):
                continue
            if pending is None:
                text = text[2:]
        if text.startswith("!") and pending is None:
            text = text[1:]
        if pending is not None:
            start, before = pending
            text = before + " " + text
            number = start
            pending = None
        if text.endswith("\\") and not text.endswith("\\\\"):
            pending = (number, text[:-1].rstrip())
            continue
        command = strip_comment(text)
        if not command:
            continue
        if language in SHELL_LANGUAGES or starts_with_command_word(command):
            found.append((number, command))
    if pending is not None:
        found.append((pending[0], strip_comment(pending[1])))
    return found


def span_commands(paragraph, options=None):
    """(line, command) for the inline code spans of a paragraph, given as (number, text) lines;
    a span that starts with an option goes to `options` as (line, command before it, span)."""
    text = ""
    starts = []  # (offset, line number)
    for number, line in paragraph:
        starts.append((len(text), number))
        text += line.strip() + " "
    found = []
    for match in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", text):
        content = match.group(2)
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        content = content.strip()
        if content.startswith("!"):
            content = content[1:]
        command = strip_comment(content)
        number = [n for offset, n in starts if offset <= match.start()][-1]
        if command.startswith("-") and found and options is not None:
            options.append((number, found[-1][1], command))
        if command in COMMAND_WORDS:  # a program's name alone (`apt-get`): not a command
            continue
        if command and starts_with_command_word(command):
            found.append((number, command))
    return found


FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
LIST_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)")


def extract(text, options=None):
    """Every command of a Markdown page, in order, each once: [(line, command)]. The option
    spans go to `options` (span_commands)."""
    found = []
    lines = text.split("\n")
    paragraph = []
    fence = None  # (marker, language, lines)
    block = None  # lines of an indented code block
    base = 0      # the indentation of the text the page is in (a list item's content)
    previous_blank = True

    def flush():
        found.extend(span_commands(paragraph, options))
        paragraph.clear()

    for number, line in enumerate(lines, 1):
        if fence is not None:
            marker, language, body = fence
            if line.strip().startswith(marker) and not line.strip().strip(marker[0]):
                found.extend(block_commands(body, language))
                fence = None
            else:
                body.append((number, line))
            continue
        if not line.strip():
            flush()
            previous_blank = True
            continue
        indent = len(line) - len(line.lstrip(" "))
        if (previous_blank or block is not None) and indent >= base + 4:
            if block is None:
                block = []
            block.append((number, line))
            previous_blank = False
            continue
        if block is not None:
            found.extend(block_commands(block, ""))
            block = None
        opening = FENCE.match(line)
        if opening:
            flush()
            fence = (opening.group(2), opening.group(3).lower(), [])
            continue
        item = LIST_ITEM.match(line)
        base = len(item.group(1)) if item else indent
        if line.lstrip().startswith("#"):
            flush()
            paragraph.append((number, line))
            flush()
        else:
            paragraph.append((number, line))
        previous_blank = False
    flush()
    if block is not None:
        found.extend(block_commands(block, ""))
    unique = []
    seen = set()
    for number, command in found:
        if command not in seen:
            seen.add(command)
            unique.append((number, command))
    return unique


# ---- The manifest -------------------------------------------------------------------------

class Entry:
    def __init__(self, page, line, kind, code, subs, note, command):
        self.page, self.line, self.kind, self.code = page, line, kind, code
        self.subs, self.note, self.command = subs, note, command

    def treatment(self):
        text = "check" if self.kind == "check" else f"run {self.code}"
        if self.subs:
            text += " with " + ", ".join(f"{k}={v}" for k, v in self.subs)
        if self.note:
            text += f" ({self.note})"
        return text

    def concrete(self, clone="{clone}", tmp="{tmp}"):
        """The command with the manifest's substitutions made."""
        command = self.command
        for key, value in self.subs:
            value = value.replace("{clone}", clone).replace("{tmp}", tmp)
            if re.fullmatch(r"\w+", key):
                command = re.sub(rf"(?<![\w]){re.escape(key)}(?![\w])", lambda _: value, command)
            else:
                command = command.replace(key, value)
        return command


def read_manifest(path):
    """{page: [Entry]} and the problems of its form."""
    entries, problems = {}, []
    page = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            header = re.fullmatch(r"\[(.+)\]", line.strip())
            if header:
                page = header.group(1)
                entries.setdefault(page, [])
                continue
            match = ENTRY.match(line)
            if not match or page is None:
                problems.append(f"{MANIFEST}:{number}: not \"[PAGE]\" nor \"run CODE: COMMAND\" "
                                f"nor \"check: COMMAND\" under a [PAGE]: {line}")
                continue
            subs = []
            for pair in (match.group("subs") or "").split(","):
                if pair.strip():
                    key, _, value = pair.strip().partition("=")
                    subs.append((key, value))
            code = int(match.group("code")) if match.group("code") else None
            entries[page].append(Entry(page, number, match.group("kind").split()[0], code, subs,
                                       match.group("note"), match.group("command")))
    return entries, problems


def manifest_text(pages_root, old):
    """The manifest the pages ask for, with the treatments of the commands already in `old`."""
    out = [MANIFEST_HEADER]
    for page in PAGES:
        known = {e.command: e for e in old.get(page, [])}
        out.append(f"\n[{page}]\n")
        with open(os.path.join(pages_root, page), encoding="utf-8") as f:
            for _, command in extract(f.read()):
                entry = known.get(command)
                treatment = entry.treatment() if entry else "check (new)"
                out.append(f"{treatment}: {command}\n")
    return "".join(out)


# ---- Checks of the names a command uses ---------------------------------------------------

class Repository:
    """What the commands may name: files, presets, targets, labels, options."""

    def __init__(self, root):
        self.root = root
        with open(os.path.join(root, "CMakePresets.json"), encoding="utf-8") as f:
            presets = json.load(f)
        self.presets = {kind: {p["name"]: p for p in presets.get(kind + "Presets", [])}
                        for kind in ("configure", "build", "test", "workflow")}
        self.cmake_text = ""
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and
                       not (folder == root and d == "build")]
            for name in files:
                if name == "CMakeLists.txt" or name.endswith(".cmake"):
                    with open(os.path.join(folder, name), encoding="utf-8") as f:
                        self.cmake_text += f.read() + "\n"
        self.targets = set(re.findall(
            r"\badd_(?:executable|library|custom_target)\(\s*([A-Za-z0-9_.+-]+)", self.cmake_text))
        for number, slug in re.findall(r"normlab_add_chapter\(\s*NUMBER\s+(\d+)\s+SLUG\s+(\S+)",
                                       self.cmake_text):
            self.targets |= {f"normlab_ch{number}", f"ch{number}_{slug.replace('-', '_')}"}
        self.labels = set()
        for text in re.findall(r"LABELS\s+([^)\n]*)", self.cmake_text):
            self.labels |= set(re.findall(r"[A-Za-z][\w-]*", text))
        with open(os.path.join(root, "course.json"), encoding="utf-8") as f:
            course = json.load(f)
        self.labels |= {f"ch{int(c['number']):02d}" for c in course.get("chapters", [])}
        self.exercises = {f"{int(e['number']):02d}" for e in course.get("exercises", [])}
        self.labels |= {f"ex{number}" for number in self.exercises}
        # Build folders: the configure presets' and the one scikit-build-core builds in.
        self.build_dirs = {self.binary_dir(p) for p in self.presets["configure"]} - {None}
        pyproject = os.path.join(root, "pyproject.toml")
        if os.path.exists(pyproject):
            with open(pyproject, encoding="utf-8") as f:
                self.build_dirs |= set(re.findall(r'^build-dir\s*=\s*"([^"]+)"', f.read(), re.M))
        minimum = re.search(r"cmake_minimum_required\(VERSION ([0-9.]+)", self.cmake_text)
        self.cmake_minimum = minimum.group(1) if minimum else None

    def binary_dir(self, name):
        preset = self.presets["configure"].get(name)
        while preset is not None and "binaryDir" not in preset:
            parents = preset.get("inherits", [])
            parents = [parents] if isinstance(parents, str) else parents
            preset = self.presets["configure"].get(parents[0]) if parents else None
        if preset is None:
            return None
        return preset["binaryDir"].replace("${sourceDir}/", "").replace("${presetName}", name)

    def glob(self, path):
        """The path if it exists, else the files matching it with its placeholders as
        wildcards."""
        if os.path.lexists(os.path.join(self.root, path)):
            return [path]
        candidates = [""]
        for part in placeholder_pattern(path).split("/"):
            found = []
            for candidate in candidates:
                folder = os.path.join(self.root, candidate)
                if os.path.isdir(folder):
                    found += [os.path.join(candidate, name) for name in sorted(os.listdir(folder))
                              if fnmatch.fnmatchcase(name, part)]
            candidates = found
        return candidates

    def read(self, path):
        with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
            return f.read()

    def sources(self, folder):
        text = ""
        for name in sorted(os.listdir(os.path.join(self.root, folder))):
            if name.endswith((".cpp", ".hpp", ".cu", ".cuh", ".h")):
                text += self.read(os.path.join(folder, name))
        return text


def placeholder_pattern(path):
    """A path with its placeholders as fnmatch wildcards: NN two digits, DIR and such anything."""
    path = re.sub(r"<[^>]*>", "*", path)
    path = re.sub(r"NN", "[0-9][0-9]", path)
    return re.sub(r"(?<![A-Za-z])[A-Z][A-Z_]+(?![a-z])", "*", path)


def is_placeholder(word):
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]+|<[^>]*>", word))


def has_option(text, option):
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


class Checker:
    def __init__(self, repo):
        self.repo = repo
        self.problems = []

    def fail(self, text):
        self.problems.append(text)

    def path(self, path, what="file"):
        if path.startswith("$PWD/"):
            path = path[len("$PWD/"):]
        if path.startswith("build/"):
            return self.build_path(path)
        if not self.repo.glob(path.rstrip("/")):
            self.fail(f"no {what} {path} in the repository")
            return None
        return path

    def build_path(self, path):
        parts = path.rstrip("/").split("/")
        if len(parts) < 2:
            return
        if "/".join(parts[:2]) not in self.repo.build_dirs and not is_placeholder(parts[1]):
            self.fail(f"{'/'.join(parts[:2])} is no configure preset's binary folder nor "
                      f"pyproject.toml's build-dir (they are "
                      f"{', '.join(sorted(self.repo.build_dirs))})")
        rest = parts[2:]
        if len(rest) > 1 and not self.repo.glob(rest[0]):
            self.fail(f"{path}: the build folder {rest[0]} has no source folder {rest[0]}/")
        if rest:
            base = rest[-1]
            if "." not in base or base.endswith((".so", ".a")):
                target = re.sub(r"^lib(.*)\.(so|a)$", r"\1", base)
                self.target(target)

    def target(self, name):
        pattern = placeholder_pattern(name)
        if not any(fnmatch.fnmatchcase(t, pattern) for t in self.repo.targets):
            self.fail(f"no build target {name} (add_executable/add_library/add_custom_target "
                      f"or normlab_add_chapter in the CMake files)")

    def preset(self, kind, name):
        if name not in self.repo.presets[kind]:
            self.fail(f"no {kind} preset {name} in CMakePresets.json (it has "
                      f"{', '.join(self.repo.presets[kind])})")

    def options(self, owner, text, args):
        for arg in args:
            if arg.startswith("-") and not re.fullmatch(r"-[\d.]+", arg):
                option = arg.split("=", 1)[0]
                if not has_option(text, option):
                    self.fail(f"{owner} does not accept {option} (not in its usage or option "
                              f"parsing)")

    def positional_paths(self, args):
        for arg in args:
            if arg.startswith("-") or is_placeholder(arg) or "/" not in arg:
                continue
            if arg.startswith("$PWD/") or arg.startswith("build/"):
                self.path(arg)
            elif self.repo.glob(arg.split("/")[0]):
                self.path(arg)

    def script(self, path, args, direct):
        found = self.path(path, "script")
        if found is None:
            return
        matches = self.repo.glob(found)
        full = os.path.join(self.repo.root, matches[0])
        if direct and not os.access(full, os.X_OK):
            self.fail(f"{path} is not executable (chmod +x), yet the page runs it directly")
        text = self.repo.read(matches[0])
        if "tools/normlab" in text:  # it passes its options on to the normlab program
            text += self.program_text("tools/normlab")
        self.options(path, text, args)
        self.positional_paths(args)
        words, previous = [], ""
        for arg in args:
            if not arg.startswith("-") and previous not in VALUED_OPTIONS:
                words.append(arg)
            previous = arg
        self.script_words(found, text, words)

    def script_words(self, path, text, words):
        """The positional words of the scripts whose words are the repository's names:
        scripts/test's workflow preset, scripts/grade's exercises, a Python script's command."""
        words = [w for w in words if not is_placeholder(w)]
        if path == "scripts/test" and words:
            self.preset("workflow", words[0])
        elif path == "scripts/grade":
            for word in words:
                number = f"{int(word):02d}" if word.isdigit() else word
                if word != "all" and number not in self.repo.exercises:
                    self.fail(f"scripts/grade {word}: no exercise {word} in course.json")
        elif path.endswith(".py") and words and f'"{words[0]}"' not in text:
            self.fail(f"{path} has no subcommand {words[0]}")

    def program_text(self, folder):
        return self.repo.sources(folder) + self.repo.sources("common/src")

    def normlab(self, owner, args):
        text = self.program_text("tools/normlab")
        words = [a for a in args if not a.startswith("-")]
        if words and not is_placeholder(words[0]) and f'"{words[0]}"' not in text:
            self.fail(f"{owner} has no subcommand {words[0]} (tools/normlab/main.cpp)")
        self.options(owner, quoted_options(text), args)

    def cmake(self, args):
        mode, i = "configure", 0
        while i < len(args):
            arg = args[i]
            value = args[i + 1] if i + 1 < len(args) else ""
            if arg in ("--build", "--install"):
                mode = arg[2:]
                if value and not value.startswith("-"):
                    self.path(value, "build folder")
                    i += 1
            elif arg == "--workflow":
                mode = "workflow"
            elif arg == "--preset" or arg.startswith("--preset="):
                name = arg.split("=", 1)[1] if "=" in arg else value
                self.preset(mode if mode != "install" else "configure", name)
                i += 0 if "=" in arg else 1
            elif arg in ("--target", "-t"):
                while i + 1 < len(args) and not args[i + 1].startswith("-"):
                    self.target(args[i + 1])
                    i += 1
            elif arg.startswith("-D"):
                name = arg[2:].split("=", 1)[0].split(":", 1)[0]
                if not name.startswith("CMAKE_") and not re.search(rf"\b{name}\b",
                                                                   self.repo.cmake_text):
                    self.fail(f"cmake -D{name}: no CMake file reads {name}")
            elif arg in ("-B", "--prefix", "-j", "--parallel", "--config", "--component", "-G"):
                i += 1
            elif arg == "-S":
                self.path(value, "source folder")
                i += 1
            elif arg not in ("--fresh",):
                self.fail(f"cmake {arg}: not an option the checker knows (teach Checker.cmake)")
            i += 1

    def ctest(self, args):
        i = 0
        while i < len(args):
            arg = args[i]
            value = args[i + 1] if i + 1 < len(args) else ""
            if arg == "--preset":
                self.preset("test", value)
                i += 1
            elif arg in ("-L", "--label-regex", "-LE", "--label-exclude"):
                if value not in self.repo.labels and not is_placeholder(value):
                    self.fail(f"ctest {arg} {value}: no test has the label {value}")
                i += 1
            elif arg == "--test-dir":
                self.path(value, "build folder")
                i += 1
            elif arg in ("-R", "-E", "-j", "--parallel"):
                i += 1
            elif arg not in ("--output-on-failure", "-N", "-V"):
                self.fail(f"ctest {arg}: not an option the checker knows (teach Checker.ctest)")
            i += 1

    def pip(self, args):
        """pip install/wheel: a project folder it names has a pyproject.toml; the CMake it
        installs is the version CMakeLists.txt needs."""
        previous = ""
        for arg in args[1:]:
            if arg.startswith("-") or previous in PIP_VALUED_OPTIONS:
                previous = arg
                continue
            previous = arg
            wanted = re.fullmatch(r"cmake>=([0-9.]+)", arg)
            if wanted and self.repo.cmake_minimum and wanted.group(1) != self.repo.cmake_minimum:
                self.fail(f"pip installs {arg}, but CMakeLists.txt needs CMake "
                          f"{self.repo.cmake_minimum}")
            elif (arg == "." or "/" in arg) and not is_placeholder(arg):
                project = arg[len("$PWD/"):] if arg.startswith("$PWD/") else arg
                if not os.path.exists(os.path.join(self.repo.root, project, "pyproject.toml")):
                    self.fail(f"pip {args[0]} {arg}: no pyproject.toml in {arg}")

    def simple(self, words):
        """The names one simple command (no && | ;) uses."""
        while words and ASSIGNMENT.fullmatch(words[0]):
            self.assignment(words.pop(0))
        if not words:
            return
        program, args = words[0], words[1:]
        if program == "export":
            for arg in args:
                self.assignment(arg)
        elif program in ("bash", "sh"):
            if args:
                self.script(args[0], args[1:], direct=False)
        elif program in ("python", "python3"):
            if args and args[0] == "-m":
                if args[1:2] == ["pip"]:
                    self.pip(args[2:])
            elif args and args[0] != "-c":
                self.script(args[0], args[1:], direct=False)
        elif program in ("pip", "pip3"):
            self.pip(args)
        elif program == "cmake":
            self.cmake(args)
        elif program == "ctest":
            self.ctest(args)
        elif program == "normlab":
            self.normlab("normlab", args)
        elif program.startswith("build/"):
            self.build_path(program)
            parts = program.split("/")
            if parts[2:3] == ["tools"] and parts[-1] == "normlab":
                self.normlab(program, args)
            elif len(parts) > 3:
                folders = self.repo.glob("/".join(parts[2:-1]))
                text = "".join(self.program_text(f) for f in folders)
                if "benchmark::Initialize" in text:  # Google Benchmark's own options
                    args = [a for a in args if not a.startswith("--benchmark_")]
                self.options(program, quoted_options(text), args)
        elif program in EXTERNAL_PROGRAMS:
            return
        elif "/" in program:
            self.script(program, args, direct=True)
        else:
            self.fail(f"the checker does not know the program {program}: add it to "
                      f"EXTERNAL_PROGRAMS or to Checker.simple in {MANIFEST[:-3]}py")

    def assignment(self, word):
        _, _, value = word.partition("=")
        for part in value.split(":"):
            if "/" in part and (part.startswith("$PWD/") or part.startswith("build/")):
                self.path(part)

    def command(self, command):
        try:
            words = shlex.split(re.sub(r"<[^>]*>", "PLACEHOLDER", command))
        except ValueError as error:
            self.fail(f"not a shell command ({error})")
            return
        simple = []
        for word in words + [";"]:
            if word in ("&&", "||", ";", "|"):
                self.simple(simple)
                simple = []
            else:
                simple.append(word)


# pip's options whose next word is their value.
PIP_VALUED_OPTIONS = {"-C", "--config-settings", "-w", "--wheel-dir", "-f", "--find-links", "-r",
                      "--requirement", "-c", "--constraint", "-t", "--target", "--prefix",
                      "--root", "-i", "--index-url"}
# Options of those scripts whose next word is their value, not a positional word.
VALUED_OPTIONS = {"--junit", "--json"}


def program_of(command):
    """The program a command's last simple command runs, with its subcommand for normlab."""
    words = re.split(r"&&|\|\||;|\|", command)[-1].split()
    return " ".join(words[:2] if words[0] == "normlab" else words[:1])


def quoted_options(text):
    """Only the options a C++ program compares against: "--name" in quotes."""
    return " ".join(re.findall(r'"(-[\w-]+)"', text))


# ---- Running ------------------------------------------------------------------------------

def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], check=True, capture_output=True).stdout


class Clone:
    """One clone of root's HEAD with root's uncommitted and new files committed over it; reset
    to that commit before each command, so every command starts from the same fresh tree."""

    def __init__(self, root):
        self.root = root
        self.holder = tempfile.TemporaryDirectory(prefix="doc_commands.")
        self.path = os.path.join(self.holder.name, "clone")
        subprocess.run(["git", "clone", "-q", root, self.path], check=True, capture_output=True)
        changed = git(root, "diff-index", "-z", "--name-only", "HEAD").split(b"\0")
        changed += git(root, "ls-files", "-z", "--others", "--exclude-standard").split(b"\0")
        for name in filter(None, changed):
            name = name.decode()
            source, target = os.path.join(root, name), os.path.join(self.path, name)
            if os.path.lexists(source):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(source, target, follow_symlinks=False)
            elif os.path.lexists(target):
                os.remove(target)
        identity = ["-c", "user.name=doc_commands", "-c", "user.email=doc_commands@localhost"]
        git(self.path, "add", "-A")
        git(self.path, *identity, "commit", "-q", "--allow-empty", "-m", "the working tree")
        if os.path.isdir(os.path.join(root, ".deps")):
            os.symlink(os.path.join(root, ".deps"), os.path.join(self.path, ".deps"))
        self.runs = 0

    def fresh(self):
        """The clone as made, and an empty folder beside it."""
        if self.runs:
            git(self.path, "reset", "-q", "--hard")
            git(self.path, "clean", "-qffdx", "-e", "/.deps")
        self.runs += 1
        tmp = os.path.join(self.holder.name, f"tmp{self.runs}")
        os.mkdir(tmp)
        return self.path, tmp

    def close(self):
        self.holder.cleanup()


def run_entry(clone, entry, timeout):
    """A problem, or None when the command exits as the manifest says."""
    path, tmp = clone.fresh()
    command = entry.concrete(path, tmp)
    # Its own process group, so that what it started ends with it on a timeout.
    process = subprocess.Popen(["bash", "-c", command], cwd=path, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True,
                               env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    try:
        output = process.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return (f"did not finish within {timeout} s: make it \"check\" in {MANIFEST}, or make it "
                f"quick")
    if process.returncode != entry.code:
        tail = output.decode(errors="replace").strip().splitlines()[-8:] or ["(no output)"]
        return (f"exited with {process.returncode}, the manifest expects {entry.code}; fix the "
                f"command or the page, or change the expected code in {MANIFEST}. Its last "
                f"lines:\n      " + "\n      ".join(tail))
    return None


# ---- The test -----------------------------------------------------------------------------

def missing_dependencies(root):
    """What scripts/deps.sh --check finds missing in @p root ("deps: missing ..."), or None."""
    done = subprocess.run(["bash", os.path.join(root, "scripts", "deps.sh"), "--check"],
                          capture_output=True, text=True)
    return None if done.returncode == 0 else (done.stdout or done.stderr).strip()


def test(root, pages_root, manifest_path, run=True, only=None, timeout=RUN_TIMEOUT, quiet=False):
    """The problems found, each a message naming page, command and what to do. The run commands
    assume what scripts/deps.sh installs: where it finds something missing (a GPU server set up
    for the gpu preset alone has no Doxygen, which `cmake --preset default` needs for the book),
    they are checked and not run, and the summary says why."""
    repo = Repository(root)
    not_run = missing_dependencies(root) if run else None
    run = run and not_run is None
    entries, problems = read_manifest(manifest_path)
    todo = f"(python3 {MANIFEST[:-3]}py --diff shows the difference, --write-manifest writes it)"
    runs = checks = option_spans = 0
    clone = None
    for page in PAGES:
        options = []
        with open(os.path.join(pages_root, page), encoding="utf-8") as f:
            shown = extract(f.read(), options)
        option_spans += len(options)
        for line, command, option in options:
            checker = Checker(repo)
            checker.command(f"{program_of(command)} {option}")
            problems += [f"{page}:{line} shows `{option}` as an option of `{command}`: {p}; fix "
                         f"the page or the program" for p in checker.problems]
        listed = {e.command: e for e in entries.get(page, [])}
        for line, command in shown:
            if command not in listed:
                problems.append(f"{page}:{line} shows `{command}`, which {MANIFEST} does not list "
                                f"under [{page}]: add it with its treatment {todo}")
        commands = {command for _, command in shown}
        for entry in entries.get(page, []):
            where = f"{page} `{entry.command}` ({MANIFEST}:{entry.line})"
            if entry.command not in commands:
                problems.append(f"{where}: {page} no longer shows this command: remove it from "
                                f"{MANIFEST}, or put it back on the page {todo}")
                continue
            checker = Checker(repo)
            checker.command(entry.concrete())
            problems += [f"{where}: {p}" for p in checker.problems]
            checks += 1
            if entry.kind == "run" and run and (only is None or only(entry)):
                if clone is None:
                    try:
                        clone = Clone(root)
                    except subprocess.CalledProcessError as error:
                        message = error.stderr.decode(errors="replace").strip()
                        problems.append(f"could not make a clone of {root} to run in: {message}")
                        run = False
                        continue
                runs += 1
                problem = run_entry(clone, entry, timeout)
                if problem:
                    problems.append(f"{where}: {problem}")
    if clone is not None:
        clone.close()
    for page in entries:
        if page not in PAGES:
            problems.append(f"{MANIFEST}: [{page}] is not one of the pages tested "
                            f"({', '.join(PAGES)})")
    if not quiet:
        print(f"doc_commands: {checks} commands of {len(PAGES)} pages checked, {runs} of them "
              f"run; {option_spans} option spans checked")
        if not_run:
            print(f"doc_commands: the run commands were not run: {not_run} (scripts/deps.sh "
                  f"--check), which they assume installed")
    return problems


def report(problems):
    for problem in problems:
        print(f"FAILED: {problem}")
    return 1 if problems else 0


EXTRACTION_PAGE = """\
# A page

Run `scripts/tour --rows 8` (or `--help`), then `cmake --workflow
--preset default`; `apt-get` installs; `common/` is a folder; `normlab::run` is C++;
`CUDAARCHS=90 pip install -v .` for one GPU.

```sh
scripts/test gpu   # a comment
cmake --build --preset default \\
  --target book
!git clone <this repository> normlab  # a notebook cell
echo '# not a comment'
```

```console
$ ctest --preset default -L ch04
100% tests passed
```

```python
import normlab_torch
```

```
scripts/     a folder of the layout
scripts/grade --list
```

1. Grade it:

       scripts/grade 04

   Then:

       // TODO(exNN) begin
       bash .ci/run
"""
EXTRACTED = ["scripts/tour --rows 8", "cmake --workflow --preset default",
             "CUDAARCHS=90 pip install -v .", "scripts/test gpu",
             "cmake --build --preset default --target book",
             "git clone <this repository> normlab", "echo '# not a comment'",
             "ctest --preset default -L ch04", "scripts/grade --list", "scripts/grade 04",
             "bash .ci/run"]


def self_test(root):
    """The extraction rule on a page with every form, then each kind of failure provoked on
    pages and a manifest written for it (the pages' own state is the test's, not this one's)."""
    failures = []
    got = [command for _, command in extract(EXTRACTION_PAGE)]
    if got != EXTRACTED:
        failures.append(f"extraction: expected {EXTRACTED}, got {got}")
    else:
        print(f"self-test: extraction: the {len(got)} commands of every form, and nothing else")
    with tempfile.TemporaryDirectory(prefix="doc_commands_self_test.") as folder:
        def case(name, lines, expect, page_lines=None, prose=None, **kwargs):
            """Manifest lines under [CONTRIBUTING.md]; that page shows page_lines (default: the
            commands of lines) in a sh block, or the paragraph `prose`; the other pages
            nothing."""
            commands = page_lines if page_lines is not None else [
                ENTRY.match(line).group("command") for line in lines]
            if prose:
                commands = []
            for page in PAGES + (MANIFEST,):
                os.makedirs(os.path.dirname(os.path.join(folder, page)) or folder, exist_ok=True)
                with open(os.path.join(folder, page), "w", encoding="utf-8") as f:
                    f.write("# A page\n")
            with open(os.path.join(folder, "CONTRIBUTING.md"), "a", encoding="utf-8") as f:
                f.write("\n```sh\n" + "".join(c + "\n" for c in commands) + "```\n")
                f.write(f"\n{prose}\n" if prose else "")
            manifest = os.path.join(folder, MANIFEST)
            with open(manifest, "w", encoding="utf-8") as f:
                f.write("[CONTRIBUTING.md]\n" + "".join(line + "\n" for line in lines))
            problems = test(root, folder, manifest, quiet=True, **kwargs)
            if expect is None and problems:
                failures.append(f"{name}: expected no failure, got: {problems}")
            elif expect is not None and not any(expect in p for p in problems):
                failures.append(f"{name}: expected a failure saying \"{expect}\", got: {problems}")
            elif expect is not None and len(problems) != 1:
                failures.append(f"{name}: expected one failure, got: {problems}")
            else:
                print(f"self-test: {name}: " + (f"failed as it must: {problems[0]}" if problems
                                               else "passed as it must"))

        case("names that exist", [
            "check: scripts/grade --list", "check: cmake --workflow --preset default",
            "check: cmake --build --preset default --target book normlab",
            "check: ctest --preset default -L ch04", "check: bash tests/cpu/grade_reset.sh",
            "check: build/default/chapters/NN-*/chNN_* --rows 8",
            "check: normlab explain --op rmsnorm", "check: scripts/tour --rows 8",
            "check: export PYTHONPATH=$PWD/python", "check: scripts/test gpu",
            "check: scripts/grade all --json out.json", "check: python3 scripts/course.py check",
            "check: CUDAARCHS=90 pip install -v -C cmake.define.X=1 . 'cmake>=3.25'",
            "check with DIR=copy: scripts/student-copy DIR --no-build"], None)
        case("a page shows a command the manifest lacks", [], "does not list",
             page_lines=["scripts/grade --list"])
        case("the manifest lists a command no page shows", ["check: scripts/grade --list"],
             "no longer shows", page_lines=[])
        case("a missing script", ["check: scripts/no-such-script"],
             "no script scripts/no-such-script")
        case("a missing file", ["check: bash tests/cpu/no-such-file.sh"],
             "no script tests/cpu/no-such-file.sh")
        case("a missing path", ["check: export PYTHONPATH=$PWD/python/no_such_package"],
             "no file python/no_such_package")
        case("a missing configure preset", ["check: cmake --preset no-such-preset"],
             "no configure preset no-such-preset")
        case("a missing workflow preset", ["check: cmake --workflow --preset tour"],
             "no workflow preset tour")
        case("a missing test preset", ["check: ctest --preset tour"], "no test preset tour")
        case("a missing build target", ["check: cmake --build --preset default --target nothing"],
             "no build target nothing")
        case("a missing program", ["check: build/default/chapters/NN-*/chNN_nothing"],
             "no build target chNN_nothing")
        case("a missing build folder", ["check: scripts/torch_test build/nothing"],
             "build/nothing is no configure preset's binary folder")
        case("a missing script option", ["check: scripts/grade --no-such-option"],
             "scripts/grade does not accept --no-such-option")
        case("a missing option of the program a script runs", ["check: scripts/tour --no-such"],
             "scripts/tour does not accept --no-such")
        case("a missing program option", ["check: normlab explain --no-such-option"],
             "normlab does not accept --no-such-option")
        case("a missing workflow preset of scripts/test", ["check: scripts/test tour"],
             "no workflow preset tour")
        case("a missing exercise", ["check: scripts/grade --reset 99"],
             "no exercise 99 in course.json")
        case("a missing subcommand of a Python script", ["check: scripts/course.py no-such"],
             "scripts/course.py has no subcommand no-such")
        case("an option span the command before it does not take", [
            "check: scripts/grade NN"], "shows `--no-such` as an option of `scripts/grade NN`",
             page_lines=None, prose="`scripts/grade NN` (or `--json FILE`, `--no-such`)")
        case("a pip project without pyproject.toml", ["check: pip install -v -C a=b ./python"],
             "pip install ./python: no pyproject.toml in ./python")
        case("a missing label", ["check: ctest --preset default -L no-such-label"],
             "no test has the label no-such-label")
        case("a missing subcommand", ["check: normlab no-such-command"],
             "normlab has no subcommand no-such-command")
        case("an unknown cmake option", ["check: cmake --no-such-option"],
             "cmake --no-such-option: not an option the checker knows")
        case("an unknown program", ["check: no-such-program --help"],
             "does not know the program no-such-program")
        case("a run command with its exit code", ["run 3: python3 -c 'exit(3)'"], None)
        case("a run command with another exit code", ["run 0: python3 -c 'exit(3)'"],
             "exited with 3, the manifest expects 0")
        case("a run command that runs too long",
             ["run 0: python3 -c 'import time; time.sleep(5)'"],
             "did not finish within 1 s", timeout=1)
    for failure in failures:
        print(f"FAILED: self-test: {failure}")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=ROOT, help="the repository (default: this one)")
    parser.add_argument("--pages-root", help="read the pages and the manifest from this folder "
                        "instead (the repository's names are still checked in --root)")
    parser.add_argument("--no-run", action="store_true", help="check names, run nothing")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--print-manifest", action="store_true")
    group.add_argument("--diff", action="store_true")
    group.add_argument("--write-manifest", action="store_true")
    group.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    pages_root = os.path.abspath(args.pages_root or root)
    manifest = os.path.join(pages_root, MANIFEST)
    if args.self_test:
        return self_test(root)
    if args.print_manifest or args.diff or args.write_manifest:
        old = read_manifest(manifest)[0] if os.path.exists(manifest) else {}
        text = manifest_text(pages_root, old)
        if args.print_manifest:
            sys.stdout.write(text)
            return 0
        if args.write_manifest:
            with open(manifest, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {manifest}; decide the treatment of each \"check (new)\" line")
            return 0
        with open(manifest, encoding="utf-8") as f:
            current = f.read()
        diff = list(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                         MANIFEST, MANIFEST + " (as the pages ask)"))
        sys.stdout.writelines(diff)
        return 1 if diff else 0
    return report(test(root, pages_root, manifest, run=not args.no_run))


if __name__ == "__main__":
    sys.exit(main())
