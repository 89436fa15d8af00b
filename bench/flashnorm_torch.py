#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's norm then linear on chapter 11's 18 shapes, timed as CUDA-graph replays.

    flashnorm_torch.py [--replays R] [--samples S]

Y = F.rms_norm(X, (K,), g, 1e-6) @ W, fp16 (PyTorch's matmul accumulates fp16 in fp32),
captured once per shape in a torch.cuda.CUDAGraph and replayed R times between two events per
sample; prints one JSON object: the GPU, and per shape the median microseconds a replay. The
same shapes and timing as build/.../ch11_flashnorm, for the book's Measured table.
"""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F

LAYERS = [(576, 960), (2048, 2560), (4096, 6144)]
TOKENS = [1, 16, 64, 256, 1024, 4096]


def time_shape(tokens, k, n, replays, samples):
    x = torch.randn(tokens, k, device="cuda", dtype=torch.float16)
    g = (1.0 + 0.2 * torch.randn(k, device="cuda")).to(torch.float16)
    w = (torch.randn(k, n, device="cuda") / k ** 0.5).to(torch.float16)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # warm up outside the capture, as PyTorch asks
        for _ in range(3):
            y = F.rms_norm(x, (k,), g, 1e-6) @ w
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = F.rms_norm(x, (k,), g, 1e-6) @ w
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for sample in range(samples + 1):  # sample 0 warms up and is dropped
        start.record()
        for _ in range(replays):
            graph.replay()
        stop.record()
        stop.synchronize()
        if sample > 0:
            times.append(1000.0 * start.elapsed_time(stop) / replays)
    del y
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replays", type=int, default=200)
    parser.add_argument("--samples", type=int, default=7)
    args = parser.parse_args()
    shapes = [{"k": k, "n": n, "tokens": t,
               "torch_us": time_shape(t, k, n, args.replays, args.samples)}
              for k, n in LAYERS for t in TOKENS]
    print(json.dumps({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "timing": "CUDA graph replay, median of samples, microseconds a replay",
                      "shapes": shapes}, indent=2))


if __name__ == "__main__":
    main()
