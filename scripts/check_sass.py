#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the SASS of compiled kernels: which instructions they use and which they must not.

usage: check_sass.py --cuobjdump PATH --library LIB --function REGEX
                     [--require PATTERN ...] [--forbid PATTERN ...] [--most-registers N]
                     [--most-barriers N] [--loads-before PATTERN] [--cache DIR]

Every kernel in LIB whose (mangled) name matches REGEX is checked; at least one must match.
Each --require regex must occur in every such kernel's SASS, no --forbid regex may occur, and
with --most-registers no such kernel may use more than N registers a thread (cuobjdump's
resource usage): the guard for a kernel whose blocks an SM depend on staying under a line.
With --most-barriers no such kernel may have more than N block barriers (BAR.SYNC): e.g. 1, a
kernel that must reduce its row once with a single barrier.
With --loads-before, every global load (LDG) of such a kernel comes before its first
instruction matching PATTERN: e.g. 'FFMA|FADD', a kernel that must issue all of a row's loads
(its parameters' too) before it starts the row's sums.
Typical patterns: 'LDG\\.E\\.128' (16-byte global loads), 'SHFL' (warp shuffles),
'LDL|STL' (local memory: spills or register arrays indexed at run time).

With --cache DIR (NORMLAB_SASS_CACHE, where set, names another DIR: CI's build directories
share one), cuobjdump's output is kept there, gzipped, under the SHA-256 of LIB's bytes and of
cuobjdump's path, size and time: the checks of one library disassemble it once between them,
and again only when it changes (chapters 07 to 10's checks all read normlab_kernels, whose
SASS, some 600 MB for sm_90 alone, takes cuobjdump a minute to print). A check waits for
another printing the same library.
"""
import argparse
import fcntl
import gzip
import hashlib
import os
import re
import subprocess
import sys
import tempfile


def kernels(sass: str):
    """Yields (name, body) for each 'Function : name' section of cuobjdump -sass output."""
    name, body = None, []
    for line in sass.splitlines():
        match = "Function : " in line and re.search(r"Function : (\S+)", line)
        if match:
            if name:
                yield name, "\n".join(body)
            name, body = match.group(1), []
        elif name:
            body.append(line)
    if name:
        yield name, "\n".join(body)


def registers(resources: str):
    """{name: registers a thread} from cuobjdump --dump-resource-usage output."""
    found, name = {}, None
    for line in resources.splitlines():
        match = re.search(r"Function (\S+):", line)
        if match:
            name = match.group(1)
            continue
        match = re.search(r"REG:(\d+)", line)
        if match and name:
            found[name] = int(match.group(1))
            name = None
    return found


def cuobjdump(tool: str, option: str, library: str, cache: str | None) -> str:
    """cuobjdump OPTION LIBRARY's output, from CACHE when it holds it for these bytes and tool."""
    if not cache:
        return subprocess.run([tool, option, library], check=True, capture_output=True,
                              text=True).stdout
    key = hashlib.sha256()
    with open(library, "rb") as contents:
        for block in iter(lambda: contents.read(1 << 20), b""):
            key.update(block)
    tool_path = os.path.realpath(tool)
    stat = os.stat(tool_path)
    key.update(f"{option} {tool_path} {stat.st_size} {stat.st_mtime_ns}".encode())
    os.makedirs(cache, exist_ok=True)
    stem = os.path.join(cache, f"{os.path.basename(library)}{option}")
    entry = f"{stem}.{key.hexdigest()[:32]}.gz"
    with open(f"{stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, failures included
        if not os.path.exists(entry):
            output = subprocess.run([tool, option, library], check=True, capture_output=True,
                                    text=True).stdout
            descriptor, temporary = tempfile.mkstemp(dir=cache, suffix=".part")
            with os.fdopen(descriptor, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb",
                                                                    compresslevel=1) as packed:
                packed.write(output.encode())
            for old in os.listdir(cache):  # this library's other versions
                if old.startswith(os.path.basename(stem) + ".") and old.endswith(".gz"):
                    os.remove(os.path.join(cache, old))
            os.replace(temporary, entry)
            return output
        with gzip.open(entry, "rt") as packed:  # under the lock: no other version removes it
            return packed.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--require", action="append", default=[])
    parser.add_argument("--forbid", action="append", default=[])
    parser.add_argument("--most-registers", type=int)
    parser.add_argument("--most-barriers", type=int)
    parser.add_argument("--loads-before")
    parser.add_argument("--cache")
    args = parser.parse_args()
    cache = args.cache and (os.environ.get("NORMLAB_SASS_CACHE") or args.cache)

    sass = cuobjdump(args.cuobjdump, "-sass", args.library, cache)
    used = {}
    if args.most_registers is not None:
        used = registers(cuobjdump(args.cuobjdump, "--dump-resource-usage", args.library, cache))
    checked, failures = 0, []
    for name, body in kernels(sass):
        if not re.search(args.function, name):
            continue
        checked += 1
        instructions = [line for line in body.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", line)]
        print(f"{name}: {len(instructions)} instructions")
        for pattern in args.require:
            count = len(re.findall(pattern, body))
            print(f"  requires /{pattern}/: {count} found")
            if count == 0:
                failures.append(f"{name} has no instruction matching /{pattern}/")
        for pattern in args.forbid:
            found = [line.strip() for line in instructions if re.search(pattern, line)]
            print(f"  forbids /{pattern}/: {len(found)} found")
            if found:
                failures.append(f"{name} has /{pattern}/, e.g. {found[0]}")
        if args.loads_before:
            first = next((i for i, line in enumerate(instructions)
                          if re.search(args.loads_before, line)), len(instructions))
            late = [line.strip() for line in instructions[first:] if re.search(r"\bLDG", line)]
            print(f"  global loads after the first /{args.loads_before}/: {len(late)}")
            if late:
                failures.append(f"{name} loads after its first /{args.loads_before}/, e.g. "
                                f"{late[0]}")
        if args.most_barriers is not None:
            barriers = [line for line in instructions if re.search(r"\bBAR\.SYNC", line)]
            print(f"  barriers: {len(barriers)}, at most {args.most_barriers}")
            if len(barriers) > args.most_barriers:
                failures.append(f"{name} has {len(barriers)} barriers (BAR.SYNC), more than "
                                f"{args.most_barriers}")
        if args.most_registers is not None:
            count = used.get(name)
            print(f"  registers: {count}, at most {args.most_registers}")
            if count is None or count > args.most_registers:
                failures.append(f"{name} uses {count} registers a thread, more than "
                                f"{args.most_registers}")
    if checked == 0:
        failures.append(f"no kernel in {args.library} matches /{args.function}/")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
