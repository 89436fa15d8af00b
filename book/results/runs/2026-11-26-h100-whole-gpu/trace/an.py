import sys, statistics as st
f = open(sys.argv[1]); blocks, rows, tr, tp = map(int, f.readline().split())
d = [[list(map(int, f.readline().split())) for r in range(min(rows, tr))] for b in range(blocks)]
t0 = min(d[b][0][0] for b in range(blocks))
names = ["wait", "moments", "blockred", "sync", "merge", "store"]
print(f"{blocks} blocks, {rows} rows; us; per row: means over blocks of each interval; last arrival at sync -> first/mean/last exit")
for r in range(min(rows, tr)):
    iv = [st.mean((d[b][r][k + 1] - d[b][r][k]) / 1e3 for b in range(blocks)) for k in range(6)]
    arrive = max(d[b][r][3] for b in range(blocks)); exits = [d[b][r][4] for b in range(blocks)]
    start = (min(d[b][r][0] for b in range(blocks)) - t0) / 1e3; end = (max(d[b][r][6] for b in range(blocks)) - t0) / 1e3
    print(f"row {r:2d} start {start:7.1f} end {end:7.1f} " + " ".join(f"{n} {v:5.2f}" for n, v in zip(names, iv)) +
          f" | release {(min(exits)-arrive)/1e3:5.2f}/{(st.mean(exits)-arrive)/1e3:5.2f}/{(max(exits)-arrive)/1e3:5.2f} arrive spread {(arrive - min(d[b][r][3] for b in range(blocks)))/1e3:5.2f}")
