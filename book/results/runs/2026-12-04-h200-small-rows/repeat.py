"""Compares tuned tables of the same grid points: how often the fastest candidate agrees, and what
each table's pick costs by the other's times (its time there over that table's fastest)."""
import math, sys

def read(path):
    table = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        op, dtype, rows, cols, *ranking = line.split()
        table[(op, dtype, int(rows), int(cols))] = {
            key: float(ms) for key, ms in (item.split("=") for item in ranking)}
    return table

def compare(a_path, b_path):
    a, b = read(a_path), read(b_path)
    points = sorted(set(a) & set(b))
    same, costs = 0, []
    for p in points:
        pick_a, pick_b = min(a[p], key=a[p].get), min(b[p], key=b[p].get)
        same += pick_a == pick_b
        # a's pick timed by b, over b's fastest; and the other way round
        costs += [b[p][pick_a] / b[p][pick_b], a[p][pick_b] / a[p][pick_a]]
    mean = math.exp(sum(map(math.log, costs)) / len(costs))
    print(f"{a_path} vs {b_path}: {len(points)} points, the same pick at {same}; "
          f"a pick's time in the other table over its fastest: geometric mean {mean:.4f}, "
          f"worst {max(costs):.4f}, above 1.02 at {sum(c > 1.02 for c in costs)} of {len(costs)}")

for i in range(1, len(sys.argv) - 1, 2):
    compare(sys.argv[i], sys.argv[i + 1])
