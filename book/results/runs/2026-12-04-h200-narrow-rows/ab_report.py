import json, math, sys
d = {k: json.load(open(f"{sys.argv[1]}/ab-{k}.json")) for k in ("old1", "new1", "old2", "new2")}
groups = {}
for key in d["old1"]:
    r = {k: d[k][key]["us"] / d[k][key]["copy_us"] for k in d}
    old = math.sqrt(r["old1"] * r["old2"]); new = math.sqrt(r["new1"] * r["new2"])
    drift = r["old2"] / r["old1"]
    print(f"{key:16s} old/copy {old:5.3f} new/copy {new:5.3f} old/new {old/new:5.3f} (old drift {drift:5.3f}) us old {d['old1'][key]['us']:.2f} new {d['new1'][key]['us']:.2f}")
    groups.setdefault(key.split()[0] + " " + ("big" if int(key.split()[1].split("x")[0]) > 256 else key.split()[1].split("x")[0]), []).append(old / new)
for g, v in groups.items():
    print(g, "geomean old/new", round(math.exp(sum(map(math.log, v)) / len(v)), 4))
