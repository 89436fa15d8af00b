#!/usr/bin/env python3
"""normlab check on the GPU: PASS with exit code 0, --json output, and a --dump whose files
hold what case.json says (sizes, dtypes) and whose y is the LayerNorm of the dumped inputs.

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


def run(normlab, *args):
    result = subprocess.run([normlab, "check", *args], capture_output=True, text=True)
    print(f"$ normlab check {' '.join(args)}  -> exit {result.returncode}")
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

    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
