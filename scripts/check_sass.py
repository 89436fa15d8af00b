#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the SASS of compiled kernels: which instructions they use and which they must not.

usage: check_sass.py --cuobjdump PATH --library LIB --function REGEX
                     [--require PATTERN ...] [--forbid PATTERN ...] [--most-registers N]

Every kernel in LIB whose (mangled) name matches REGEX is checked; at least one must match.
Each --require regex must occur in every such kernel's SASS, no --forbid regex may occur, and
with --most-registers no such kernel may use more than N registers a thread (cuobjdump's
resource usage): the guard for a kernel whose blocks an SM depend on staying under a line.
Typical patterns: 'LDG\\.E\\.128' (16-byte global loads), 'SHFL' (warp shuffles),
'LDL|STL' (local memory: spills or register arrays indexed at run time).
"""
import argparse
import re
import subprocess
import sys


def kernels(sass: str):
    """Yields (name, body) for each 'Function : name' section of cuobjdump -sass output."""
    name, body = None, []
    for line in sass.splitlines():
        match = re.search(r"Function : (\S+)", line)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--require", action="append", default=[])
    parser.add_argument("--forbid", action="append", default=[])
    parser.add_argument("--most-registers", type=int)
    args = parser.parse_args()

    sass = subprocess.run([args.cuobjdump, "-sass", args.library], check=True,
                          capture_output=True, text=True).stdout
    used = {}
    if args.most_registers is not None:
        used = registers(subprocess.run([args.cuobjdump, "--dump-resource-usage", args.library],
                                        check=True, capture_output=True, text=True).stdout)
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
