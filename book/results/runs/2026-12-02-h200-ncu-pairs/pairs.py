# The table of README.md: Nsight Compute's details page (pair_details.csv.xz) cut to the metrics
# that compare normlab's kernel with torch.compile's at each shape of ncu_pair.py.
import csv
import lzma
from pathlib import Path

METRICS = ["Duration", "DRAM Throughput", "Registers Per Thread", "Block Size", "Grid Size",
           "Executed Instructions", "Elapsed Cycles", "Achieved Occupancy"]
SHAPES = ["rmsnorm 1 x 4096", "rmsnorm 8192 x 4096", "layernorm 1 x 4096",
          "layernorm 8192 x 4096", "layernorm 1 x 32768", "layernorm 1 x 32768",
          "layernorm 1 x 32768", "rmsnorm 256 x 32768", "rmsnorm 256 x 32768",
          "rmsnorm 256 x 32768", "rmsnorm 32 x 1024"]

with lzma.open(Path(__file__).with_name("pair_details.csv.xz"), "rt") as f:
    rows = list(csv.reader(f))
column = {name: i for i, name in enumerate(rows[0])}
kernels = {}
for row in rows[1:]:
    kernel = kernels.setdefault(int(row[column["ID"]]), {"name": row[column["Kernel Name"]]})
    if row[column["Metric Name"]] in METRICS:
        kernel[row[column["Metric Name"]]] = row[column["Metric Value"]] + " " + row[
            column["Metric Unit"]]
print("| id | kernel | " + " | ".join(METRICS) + " |")
print("|---" * (len(METRICS) + 2) + "|")
for kid in sorted(kernels):
    k = kernels[kid]
    name = k["name"].split("(")[0].replace("void ", "")[:48]
    print(f"| {kid} | `{name}` | " + " | ".join(k.get(m, "") for m in METRICS) + " |")
