#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""normlab on the GPU. check: PASS with exit code 0, --json output, a --dump whose files hold
what case.json says (sizes, dtypes) and whose y is the LayerNorm of the dumped inputs; a
kernel that cannot take the case refused by name (exit 2); a head view (--groups) passing;
chapter 05's E[x^2] - E[x]^2 failing on shifted rows chosen from the command line while Welford
passes. tour: --op runs
only that op's kernels, its --json parses, and "x previous chapter" divides by the fastest
passing kernel of the op from an earlier chapter.

usage: check_cli_gpu.py PATH/TO/normlab SCRATCH_DIR
Exits 77 (skipped) when normlab check reports no GPU (exit 69), unless NORMLAB_REQUIRE_GPU=1.
"""
import json
import math
import os
import struct
import subprocess
import sys

SIZES = {"fp32": 4, "fp16": 2, "bf16": 2}


def decode(dtype, raw):
    """Little-endian elements of dtype as Python floats."""
    if dtype == "fp32":
        return list(struct.unpack(f"<{len(raw) // 4}f", raw))
    halves = struct.unpack(f"<{len(raw) // 2}H", raw)
    if dtype == "bf16":
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in halves]
    return list(struct.unpack(f"<{len(raw) // 2}e", raw))


def run(normlab, *args, command="check"):
    result = subprocess.run([normlab, command, *args], capture_output=True, text=True)
    print(f"$ normlab {command} {' '.join(args)}  -> exit {result.returncode}")
    print(result.stdout + result.stderr)
    return result


def main() -> int:
    normlab, scratch = sys.argv[1], sys.argv[2]
    first = run(normlab, "--op", "rmsnorm", "--dtype", "bf16", "--rows", "5", "--cols", "1001")
    if first.returncode == 69:
        if os.environ.get("NORMLAB_REQUIRE_GPU") == "1":
            print("FAILED: no GPU, and this build requires GPU tests to run")
            return 1
        print("SKIPPED: no CUDA GPU")
        return 77
    failures = []
    if first.returncode != 0 or not first.stdout.startswith("PASS"):
        failures.append("a plain bf16 RMSNorm check did not PASS with exit code 0")

    dump = os.path.join(scratch, "check_dump")
    args = ["--op", "add_layernorm", "--dtype", "bf16", "--weight-dtype", "fp32", "--rows", "3",
            "--cols", "1001", "--row-stride", "1013", "--misalign", "3", "--bias", "--eps", "1e-3",
            "--seed", "9", "--json", "--dump", dump]
    second = run(normlab, *args)
    report = json.loads(second.stdout)
    if second.returncode != 0 or report["result"] != "PASS":
        failures.append("the add_layernorm check did not PASS")
    if [o["name"] for o in report["outputs"]] != ["y", "residual_out"]:
        failures.append("the JSON does not report y and residual_out")

    with open(os.path.join(dump, "case.json")) as f:
        case = json.load(f)
    expected = {"op": "add_layernorm", "dtype": "bf16", "weight_dtype": "fp32", "rows": 3,
                "cols": 1001, "stride": 1013}
    for key, value in expected.items():
        if case[key] != value:
            failures.append(f"case.json {key} = {case[key]!r}, expected {value!r}")
    if abs(case["eps"] - 1e-3) > 1e-9:
        failures.append(f"case.json eps = {case['eps']}")
    names = {"x", "residual", "weight", "bias", "y", "residual_out"}
    if set(case["files"]) != names:
        failures.append(f"case.json files {sorted(case['files'])}, expected {sorted(names)}")
    data = {}
    for name, info in case["files"].items():
        with open(os.path.join(dump, name + ".bin"), "rb") as f:
            raw = f.read()
        if len(raw) != info["rows"] * info["stride"] * SIZES[info["dtype"]]:
            failures.append(f"{name}.bin has {len(raw)} bytes, not rows x stride elements")
        data[name] = (info, decode(info["dtype"], raw))

    # y and h from the dumped inputs, in double: h rounded to bf16 as the kernel stores it.
    def bf16(v):
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return struct.unpack("<f", struct.pack("<I", bits))[0]

    cols, stride = case["cols"], case["stride"]
    worst = 0.0
    for r in range(case["rows"]):
        row = slice(r * stride, r * stride + cols)
        h = [bf16(a + b) for a, b in zip(data["x"][1][row], data["residual"][1][row])]
        mean = sum(h) / cols
        var = sum((v - mean) ** 2 for v in h) / cols
        rstd = 1.0 / math.sqrt(var + case["eps"])
        w, b = data["weight"][1], data["bias"][1]
        for c in range(cols):
            want = (h[c] - mean) * rstd * w[c] + b[c]
            got = data["y"][1][r * stride + c]
            worst = max(worst, abs(got - want) / (1e-2 + 1e-2 * abs(want)))
            if data["residual_out"][1][r * stride + c] != h[c]:
                failures.append(f"residual_out ({r}, {c}) is not the rounded x + r")
                break
    print(f"y against the dumped inputs: worst error {worst:.3f} of the bf16 tolerance")
    if worst > 1.0:
        failures.append("the dumped y is not the LayerNorm of the dumped inputs")

    failures += check_refusal_and_distribution(normlab)
    failures += check_head_view(normlab, scratch)
    failures += check_tour(normlab, scratch)

    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


def check_head_view(normlab, scratch):
    """--groups: a head view (x's rows in groups of 7, each token's group followed by a gap)
    PASSes through the default kernel, chapter 09's and chapter 08's backward; the dumped x holds
    a group stride for each group, named in case.json."""
    failures = []
    dump = os.path.join(scratch, "check_head_view")
    view = ["--dtype", "bf16", "--rows", "693", "--cols", "128", "--groups", "7",
            "--group-gap", "384"]
    for op, extra in (("rmsnorm", ["--dump", dump]), ("layernorm", ["--kernel", "ch09_layernorm"]),
                      ("rmsnorm_backward", []), ("layernorm_backward", ["--misalign", "1"])):
        result = run(normlab, "--op", op, *view, *extra)
        if result.returncode != 0 or not result.stdout.startswith("PASS"):
            failures.append(f"the {op} head view did not PASS")
    with open(os.path.join(dump, "case.json")) as f:
        x = json.load(f)["files"]["x"]
    if (x.get("group_rows"), x.get("group_stride")) != (7, 7 * 128 + 384):
        failures.append(f"case.json's x does not name its groups: {x}")
    if os.path.getsize(os.path.join(dump, "x.bin")) != 99 * (7 * 128 + 384) * 2:
        failures.append("x.bin does not hold a group stride for each of the 99 groups")
    return failures


def check_refusal_and_distribution(normlab):
    """A refused kernel exits 2 naming itself; shifted rows fail the sum of squares only."""
    failures = []
    refused = run(normlab, "--op", "rmsnorm", "--dtype", "fp32", "--rows", "4", "--cols", "64",
                  "--kernel", "ch04_rmsnorm_fused_float4", "--gemma")
    if refused.returncode != 2 or "ch04_rmsnorm_fused_float4" not in refused.stderr \
            or "(1 + w)" not in refused.stderr:
        failures.append("ch04_rmsnorm_fused_float4 with --gemma was not refused by name (exit 2)")

    case = ["--op", "layernorm", "--rows", "64", "--cols", "4096"]  # fp32 by default
    shifted = ["--distribution", "shifted", "--mean", "1e4"]
    expected = [  # kernel, extra options, exit code, first word
        ("ch05_layernorm_sum_of_squares", shifted, 1, "FAIL"),
        ("ch05_layernorm_welford", shifted, 0, "PASS"),
        ("ch05_layernorm_sum_of_squares", [], 0, "PASS"),  # centred rows: it is the data
    ]
    for kernel, extra, code, word in expected:
        result = run(normlab, *case, "--kernel", kernel, *extra)
        if result.returncode != code or not result.stdout.startswith(word):
            failures.append(f"{kernel} {' '.join(extra)}: exit {result.returncode}, "
                            f"expected {code} and {word}")
    return failures


def check_tour(normlab, scratch):
    """tour --op rmsnorm --json: only RMSNorm rows; x previous against the fastest earlier."""
    failures = []
    path = os.path.join(scratch, "tour_rmsnorm.json")
    result = run(normlab, "--op", "rmsnorm", "--rows", "256", "--cols", "4096", "--json", path,
                 command="tour")
    if result.returncode != 0:
        return ["normlab tour --op rmsnorm did not verify every kernel"]
    with open(path) as f:
        table = json.load(f)
    kernels = table["kernels"]
    if not kernels or any(k["op"] != "rmsnorm" for k in kernels):
        failures.append("tour --op rmsnorm ran kernels of other ops (or none)")
    for k in kernels:
        earlier = [e["median_ms"] for e in kernels
                   if e["passed"] and e["chapter"] < k["chapter"]]
        if not earlier:
            if "speedup_vs_previous" in k:
                failures.append(f"{k['name']} has an x previous with no earlier chapter")
            continue
        want = min(earlier) / k["median_ms"]
        got = k.get("speedup_vs_previous")
        if got is None or abs(got - want) > 1e-6 * want:
            failures.append(f"{k['name']}: x previous {got}, expected {want} (the fastest "
                            "passing earlier kernel)")
    return failures


if __name__ == "__main__":
    sys.exit(main())
