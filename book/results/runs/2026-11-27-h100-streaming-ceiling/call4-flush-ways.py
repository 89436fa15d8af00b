# The copy roof and copies of the open targets' sizes, timed three ways in one process (H100):
# nothing between repetitions, a memset of 2 x L2 before each (the harness's flush), a read of
# 2 x L2 before each (leaves clean lines). Median of 30 after 3, CUDA events, a busy-wait ahead.
import statistics, torch
props = torch.cuda.get_device_properties(0)
l2 = props.L2_cache_size
buf = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
acc = torch.empty(1, dtype=torch.int64, device="cuda")
def flush(way):
    if way == "memset": buf.zero_()
    elif way == "read": torch.sum(buf.view(torch.int64), dim=0, out=acc)
def time(launch, way, reps=30):
    for _ in range(3): flush(way); launch()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for a, b in ev:
        flush(way); torch.cuda._sleep(500000); a.record(); launch(); b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ev)
print(torch.cuda.get_device_name(0), "L2", l2)
sizes = [("roof 512 MiB", 512 << 20), ("256 MiB", 256 << 20), ("128 MiB", 128 << 20), ("72 MiB (2 x 9437184 fp32)", 9437184 * 8), ("64 MiB (512 x 65536 bf16)", 64 << 20), ("32 MiB", 32 << 20)]
for rnd in (1, 2):
    print(f"round {rnd}: GB/s of a copy (read + written)")
    for name, n in sizes:
        src = torch.ones(n, dtype=torch.uint8, device="cuda"); dst = torch.empty_like(src)
        row = [2 * n / (time(lambda: dst.copy_(src), w) * 1e6) for w in ("none", "memset", "read")]
        print(f"  {name:<28} nothing {row[0]:7.0f}  memset {row[1]:7.0f}  read {row[2]:7.0f}")
        del src, dst
    x = torch.randn(2048, 8192, device="cuda"); dy = torch.randn_like(x); dx = torch.empty_like(x)
    row = [3 * x.numel() * 4 / (time(lambda: torch.add(x, dy, out=dx), w) * 1e6) for w in ("none", "memset", "read")]
    print(f"  {'dx = x + dy fp32 2048x8192':<28} nothing {row[0]:7.0f}  memset {row[1]:7.0f}  read {row[2]:7.0f}")
