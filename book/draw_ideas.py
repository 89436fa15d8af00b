#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws the picture of each chapter's idea as SVG, one file a chapter, into book/images.

    draw_ideas.py OUT_DIR      write every figure into OUT_DIR (book/images is committed)
    draw_ideas.py --check DIR  exit 1 unless DIR holds exactly what this script draws

The numbers in the figures are the code's: block sizes, elements per thread and vector widths
are those the chapters' launchers pick on the book's reference problem, 2048 x 8192 fp32, and
the traced values (chapter 03's butterfly, chapter 05's merge) are computed here, not typed.
Python standard library only.
"""
import html
import math
import re
import sys
from pathlib import Path

WIDTH = 760
INK = "#222"
GREY = "#888"
LIGHT = "#eee"
# One colour per role, the same in every figure.
THREAD = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
MEMORY = "#c6dbef"
REGISTER = "#fdd0a2"
SHARED = "#c7e9c0"
BARRIER = "#b00"


class Figure:
    """An SVG document built element by element."""

    def __init__(self, height, title):
        self.height = height
        self.title = title
        self.body = []

    def rect(self, x, y, w, h, fill="white", stroke=INK, width=1.0, dash=None):
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        self.body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                         f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dashed}/>')

    def text(self, x, y, words, size=12, anchor="start", weight="normal", fill=INK, italic=False):
        style = ' font-style="italic"' if italic else ""
        self.body.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
                         f'text-anchor="{anchor}" font-weight="{weight}" fill="{fill}"{style}>'
                         f"{html.escape(str(words))}</text>")

    def line(self, x1, y1, x2, y2, stroke=INK, width=1.0, dash=None, arrow=False):
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        head = ' marker-end="url(#arrow)"' if arrow else ""
        self.body.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                         f'stroke="{stroke}" stroke-width="{width}"{dashed}{head}/>')

    def box(self, x, y, w, h, label, fill="white", size=12, weight="normal", stroke=INK):
        self.rect(x, y, w, h, fill=fill, stroke=stroke)
        self.text(x + w / 2, y + h / 2 + size * 0.35, label, size=size, anchor="middle",
                  weight=weight)

    def svg(self):
        return "\n".join([
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{self.height}" '
            f'viewBox="0 0 {WIDTH} {self.height}" font-family="sans-serif">',
            f"<title>{html.escape(self.title)}</title>",
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
            f'fill="{INK}"/></marker></defs>',
            '<rect width="100%" height="100%" fill="white"/>',
            *self.body, "</svg>", ""])


def heading(fig, y, words):
    fig.text(10, y, words, size=14, weight="bold")


# ---------------------------------------------------------------- 00


def ch00_roofline():
    """Attainable FLOP/s against FLOP per byte, and the bytes eager and fused RMSNorm move."""
    fig = Figure(330, "Chapter 00: a norm sits far left of the ridge; only bytes matter")
    heading(fig, 20, "The roofline (H100 SXM data sheet: 3.35 TB/s, 989 dense bf16 TFLOP/s)")
    # Log-log axes: intensity 0.1 .. 1000 FLOP/B, 0.1 .. 2000 TFLOP/s.
    x0, y0, w, h = 60, 290, 330, 240
    decades_x, decades_y = (-1, 3), (-1, 3.3)
    px = lambda i: x0 + w * (math.log10(i) - decades_x[0]) / (decades_x[1] - decades_x[0])
    py = lambda f: y0 - h * (math.log10(f) - decades_y[0]) / (decades_y[1] - decades_y[0])
    fig.line(x0, y0, x0 + w, y0)
    fig.line(x0, y0, x0, y0 - h)
    for e in range(-1, 4):
        fig.text(px(10 ** e), y0 + 14, f"{10 ** e:g}", size=10, anchor="middle", fill="#555")
        fig.text(x0 - 4, py(10 ** e) + 4, f"{10 ** e:g}", size=10, anchor="end", fill="#555")
    fig.text(x0 + w / 2, y0 + 30, "FLOP per byte moved", size=11, anchor="middle")
    fig.text(14, y0 - h / 2, "TFLOP/s", size=11)
    bandwidth, peak = 3.35, 989.0
    ridge = peak / bandwidth
    fig.line(px(0.1), py(bandwidth * 0.1), px(ridge), py(peak), stroke="#1f77b4", width=2)
    fig.line(px(ridge), py(peak), px(1000), py(peak), stroke="#1f77b4", width=2)
    fig.line(px(ridge), py(peak), px(ridge), y0, stroke=GREY, dash="3,3")
    fig.text(px(ridge), py(peak) - 8, f"ridge ~{ridge:.0f} FLOP/B", size=10, anchor="middle")
    norm = 5 / 8
    fig.line(px(norm), py(bandwidth * norm), px(norm), y0, stroke=THREAD[0], dash="3,3")
    fig.rect(px(norm) - 4, py(bandwidth * norm) - 4, 8, 8, fill=THREAD[0], stroke=THREAD[0])
    fig.text(px(norm) + 8, py(bandwidth * norm) + 16, "RMSNorm fp32: 5 FLOP / 8 B",
             size=10, fill=THREAD[0])
    fig.text(px(norm) + 8, py(bandwidth * norm) + 29, f"= {norm:.2f} FLOP/B, ~{ridge / norm:.0f}x "
             "below the ridge", size=10, fill=THREAD[0])
    # Bytes per element: eager 4 reads + 3 writes of the tensor, fused 1 + 1, copy 1 + 1.
    bx, by = 450, 60
    fig.text(bx, by - 20, "Bytes per fp32 element moved", size=12, weight="bold")
    bars = [("eager, 5 launches", 7, "4 reads + 3 writes", "#7f7f7f"),
            ("fused kernel (ch 01+)", 2, "read x, write y", "#2ca02c"),
            ("copy (the roof)", 2, "read + write", "#1f77b4")]
    unit = 34
    for i, (label, tensors, note, colour) in enumerate(bars):
        y = by + 62 * i
        fig.text(bx, y + 4, label, size=11)
        fig.rect(bx, y + 10, unit * tensors, 22, fill=colour, stroke=colour)
        fig.text(bx + unit * tensors + 6, y + 26, f"{tensors * 4} B", size=11, weight="bold")
        fig.text(bx, y + 46, note, size=10, fill="#555")
    fig.text(bx, by + 200, "At the copy roof, eager scores at most 2/7 (29%);", size=11)
    fig.text(bx, by + 216, "a fused kernel may reach 100%.", size=11)
    return fig


# ---------------------------------------------------------------- 01


def ch01_thread_per_row():
    """Thread r owns row r; a warp's load at step c touches 32 rows, 32 sectors."""
    fig = Figure(355, "Chapter 01: one thread per row, and the access pattern of a warp")
    heading(fig, 20, "Thread r owns row r (blocks of 128 threads; 2048 rows = 16 blocks)")
    x0, y0, cell, rows, cols = 120, 40, 26, 8, 16
    step = 5
    for r in range(rows):
        fig.text(x0 - 8, y0 + cell * r + 17, f"thread {r}", size=11, anchor="end",
                 fill=THREAD[r])
        for c in range(cols):
            fill = THREAD[r] if c == step else (MEMORY if c < step else "white")
            fig.rect(x0 + cell * c, y0 + cell * r, cell, cell, fill=fill, stroke=GREY, width=0.5)
        fig.line(x0 + cell * cols + 4, y0 + cell * r + 13, x0 + cell * cols + 40,
                 y0 + cell * r + 13, stroke=GREY, dash="2,2")
    fig.text(x0 + cell * cols + 46, y0 + 17, "... 8192 columns", size=11, fill="#555")
    fig.text(x0 + cell * step + 13, y0 - 6, "step c", size=10, anchor="middle")
    fig.text(x0 + cell * cols + 46, y0 + cell * 3 + 17, "rows 8192 x 4 B = 32 KiB",
             size=11)
    fig.text(x0 + cell * cols + 46, y0 + cell * 4 + 17, "apart in memory", size=11)
    fig.text(x0, y0 + cell * rows + 18, "shaded: already read by its thread;  coloured: "
             "the element each thread reads at step c", size=10, fill="#555")
    # The sectors one warp-wide load touches, thread per row against neighbouring addresses.
    y = 330
    fig.text(10, y - 40, "One warp-wide 4-byte load, in 32-byte sectors:", size=12, weight="bold")
    fig.text(10, y - 18, "thread per row: 32 sectors, 4 of 32 B used", size=11)
    for s in range(32):
        fig.rect(330 + 12 * s, y - 30, 10, 14, fill=MEMORY, stroke=GREY, width=0.5)
        fig.rect(330 + 12 * s, y - 30, 1.5, 14, fill=THREAD[0], stroke=THREAD[0], width=0)
    fig.text(10, y + 14, "neighbouring addresses (ch 02): 4 sectors, all used", size=11)
    for s in range(4):
        fig.rect(330 + 12 * s, y + 2, 10, 14, fill=THREAD[2], stroke=GREY, width=0.5)
    return fig


# ---------------------------------------------------------------- 02


def ch02_block_tree():
    """A block per row with its coalesced strided loop, and the shared-memory tree."""
    fig = Figure(440, "Chapter 02: a block per row, coalesced loads, a tree with barriers")
    heading(fig, 20, "Block b owns row b; thread t reads columns t, t + 256, t + 512, ...")
    x0, y, warp_width = 20, 40, 25
    # 8192 columns are 32 passes of the block over 256 columns; the first three are drawn.
    for k in range(3):
        x = x0 + k * (8 * warp_width + 8)
        for warp in range(8):
            fig.rect(x + warp * warp_width, y, warp_width, 22, fill=THREAD[warp], stroke="white",
                     width=0.5)
        fig.text(x + 4 * warp_width, y + 36, f"pass {k}: columns {256 * k}-{256 * k + 255}",
                 size=10, anchor="middle", fill="#555")
    fig.text(x0 + 3 * (8 * warp_width + 8) + 4, y + 16, "... 32 passes", size=11, fill="#555")
    fig.text(x0, y + 56, "one pass: 256 threads = 8 warps (colours); warp w reads 32 neighbouring "
             "floats, 128 B = 4 full sectors", size=11)
    # The tree on 16 partials (the real block: 256 partials, 8 levels, 9 barriers).
    heading(fig, 130, "The tree on 16 partials (the kernel: 256 partials, 8 levels, 9 barriers)")
    values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]
    x0, y0, cell, gap = 50, 158, 36, 58
    level = 0
    while True:
        for t, v in enumerate(values):
            fig.box(x0 + t * cell, y0 + level * gap, cell - 4, 24, v,
                    fill=SHARED if len(values) > 1 else REGISTER, size=11)
        barrier_y = y0 + level * gap + 36
        fig.line(x0 - 40, barrier_y, x0 + 16 * cell, barrier_y, stroke=BARRIER, dash="5,3")
        fig.text(x0 + 16 * cell + 4, barrier_y + 4, "__syncthreads()", size=10, fill=BARRIER)
        if len(values) == 1:
            break
        half = len(values) // 2
        for t in range(half):
            fig.line(x0 + (t + half) * cell + 18, y0 + level * gap + 24, x0 + t * cell + 22,
                     y0 + (level + 1) * gap - 2, stroke=GREY, width=0.8)
        fig.text(10, y0 + level * gap + 50, f"s = {half}", size=10, fill="#555")
        values = [values[t] + values[t + half] for t in range(half)]
        level += 1
    fig.text(x0 + cell + 4, y0 + level * gap + 17, "partial[0] = the row's sum of squares, "
             "read by every thread", size=11)
    fig.text(10, y0 - 6, "partial[t] += partial[t + s] for t < s; every level reads what "
             "other warps wrote, so a barrier separates the levels", size=11, fill="#555")
    return fig


# ---------------------------------------------------------------- 03


def butterfly(values, offsets):
    """The lanes' values after each __shfl_xor_sync step: lane i adds lane i ^ offset's."""
    steps = [list(values)]
    for offset in offsets:
        v = steps[-1]
        steps.append([v[i] + v[i ^ offset] for i in range(len(v))])
    return steps


def ch03_warp_shuffle():
    """The butterfly traced on 4 lanes, and the two-level block reduce."""
    fig = Figure(500, "Chapter 03: the xor butterfly on 4 lanes, and the two-level block sum")
    heading(fig, 20, "__shfl_xor_sync on 4 lanes, traced (a warp does the same at 16, 8, 4, 2, 1)")
    offsets = [2, 1]
    steps = butterfly([3, 1, 4, 2], offsets)
    x0, y0, cell, gap = 150, 50, 110, 70
    for lane in range(4):
        fig.text(x0 + lane * cell + 35, y0 - 4, f"lane {lane}", size=11, anchor="middle",
                 fill=THREAD[lane])
    for s, values in enumerate(steps):
        y = y0 + s * gap
        label = "start" if s == 0 else f"after xor {offsets[s - 1]}"
        fig.text(10, y + 19, label, size=11)
        for lane, v in enumerate(values):
            fig.box(x0 + lane * cell, y + 2, 70, 26, v, fill=REGISTER, size=12, weight="bold")
        if s < len(offsets):
            offset = offsets[s]
            for lane in range(4):
                partner = lane ^ offset
                fig.line(x0 + partner * cell + 35, y + 28, x0 + lane * cell + 35, y + gap,
                         stroke=THREAD[partner], width=1.2, arrow=True)
            example = f"lane 0: {values[0]} + lane {offset}'s {values[offset]} = {steps[s + 1][0]}"
            fig.text(x0 + 4 * cell, y + 52, example, size=10, fill="#555")
    fig.text(10, y0 + 2 * gap + 46, "Every lane ends with the total; no shared memory, no barrier.",
             size=11)
    # Two levels: warps reduce, lane 0 writes a slot, one barrier, every warp reduces the slots.
    y = 300
    heading(fig, y, "The block sum: 2048 x 8192 runs 1024 threads a row, 32 warps "
            "(8 drawn)")
    for w in range(8):
        x = 20 + w * 80
        fig.box(x, y + 14, 72, 22, f"warp {w}", fill=THREAD[w % len(THREAD)], size=11)
        fig.line(x + 36, y + 36, x + 36, y + 62, arrow=True)
        fig.box(x + 16, y + 64, 40, 20, f"s[{w}]", fill=SHARED, size=10)
        fig.line(x + 36, y + 84, x + 36, y + 120, stroke=GREY, arrow=True)
        fig.box(x, y + 122, 72, 22, "butterfly", fill=REGISTER, size=10)
    fig.line(10, y + 100, WIDTH - 10, y + 100, stroke=BARRIER, dash="5,3")
    fig.text(WIDTH - 12, y + 96, "one __syncthreads()", size=10, anchor="end", fill=BARRIER)
    fig.text(20, y + 164, "Lane 0 of each warp writes its warp's total to a slot; after the one "
             "barrier every warp reads all slots", size=11)
    fig.text(20, y + 180, "(lanes past the last slot add 0) and runs the butterfly again, so "
             "every thread holds the block's total.", size=11)
    return fig


# ---------------------------------------------------------------- 04


def ch04_fused_float4():
    """A thread's register slice, 16-byte accesses, and rows in flight on an SM."""
    threads, floats_per_thread, cols = 256, 32, 8192
    packs_per_thread = floats_per_thread // 4
    fig = Figure(420, "Chapter 04: the row in registers, 16 bytes a thread, rows in flight")
    heading(fig, 20, f"2048 x 8192 fp32: {threads} threads a row, {packs_per_thread} float4 "
            f"({floats_per_thread} floats) each")
    x0, y0 = 20, 44
    seg = (WIDTH - 60) / packs_per_thread
    for i in range(packs_per_thread):
        x = x0 + i * seg
        fig.rect(x, y0, seg - 4, 24, fill=MEMORY, stroke=GREY)
        fig.rect(x, y0, (seg - 4) * 32 / threads, 24, fill=THREAD[1], stroke=THREAD[1])
        fig.rect(x, y0, 2, 24, fill=THREAD[0], stroke=THREAD[0], width=0)
        fig.text(x + (seg - 4) / 2, y0 + 40, f"packs {i * threads}-{i * threads + threads - 1}",
                 size=9, anchor="middle", fill="#555")
    fig.text(x0, y0 + 58, f"The row is {cols // 4} float4 packs. Blue: the 32 packs warp 0 "
             "loads with one instruction (512 contiguous bytes).", size=11)
    fig.text(x0, y0 + 74, "Red edge: thread 0's packs, p = 0, 256, 512, ..., 1792 "
             "(p = i * 256 + t).", size=11)
    # Thread 0's registers.
    y = 170
    fig.text(x0, y, "thread 0's registers:  float4 slice[8]", size=12, weight="bold")
    for i in range(packs_per_thread):
        for j in range(4):
            fig.rect(x0 + 250 + i * 58 + j * 13, y - 14, 13, 20, fill=REGISTER, stroke=GREY,
                     width=0.5)
        fig.text(x0 + 250 + i * 58 + 26, y + 20, f"[{i}]", size=9, anchor="middle", fill="#555")
    fig.text(x0, y + 42, "All 8 loads are issued before the first is used (the loop is unrolled, "
             "no arithmetic between them),", size=11)
    fig.text(x0, y + 58, "then one block_sum, then the same registers are scaled and stored: x "
             "crosses the bus once.", size=11)
    # Rows in flight on one SM: 4 blocks of 256 threads, 32 KiB of row each.
    y = 275
    fig.text(x0, y, "One SM (cap of 64 registers a thread: 1024 threads = 4 blocks):",
             size=12, weight="bold")
    for b in range(4):
        fig.box(x0 + b * 180, y + 12, 168, 30, f"block: row {b} (32 KiB)", fill=REGISTER,
                size=11)
    fig.text(x0, y + 62, "4 rows x 32 KiB = 128 KiB requested at once per SM; 132 SMs: 528 rows "
             "at a time, 2048 rows in 3.9 waves.", size=11)
    fig.text(x0, y + 78, "Little's law needs about 25 KiB in flight per SM to keep HBM3 busy.",
             size=11)
    return fig


# ---------------------------------------------------------------- 05


def moments(values):
    n = len(values)
    mean = sum(values) / n
    return n, mean, sum((v - mean) ** 2 for v in values)


def chan_merge(a, b):
    """The merge as chapter 05's welford_merge writes it."""
    count = a[0] + b[0]
    delta = b[1] - a[1]
    share = b[0] / count
    return count, a[1] + delta * share, a[2] + b[2] + delta * delta * a[0] * share


def ch05_welford():
    """Two partial (count, mean, M2) merging into the moments of their union."""
    left, right = [1.0, 2.0, 3.0], [5.0, 7.0]
    a, b = moments(left), moments(right)
    merged = chan_merge(a, b)
    direct = moments(left + right)
    assert all(abs(m - d) < 1e-12 for m, d in zip(merged, direct))
    fig = Figure(400, "Chapter 05: Chan's merge of two Welford moments")
    heading(fig, 20, "Two partial moments (count, mean, M2) merge without a sum of squares")
    fmt = lambda m: f"n = {m[0]:g}, mean = {m[1]:g}, M2 = {m[2]:g}"
    fig.box(20, 50, 320, 30, "values " + ", ".join(f"{v:g}" for v in left), fill=MEMORY)
    fig.box(420, 50, 320, 30, "values " + ", ".join(f"{v:g}" for v in right), fill=MEMORY)
    fig.box(20, 100, 320, 30, "a: " + fmt(a), fill=REGISTER)
    fig.box(420, 100, 320, 30, "b: " + fmt(b), fill=REGISTER)
    fig.line(180, 80, 180, 98, arrow=True)
    fig.line(580, 80, 580, 98, arrow=True)
    fig.text(190, 93, "Welford pushes", size=10, fill="#555")
    fig.text(590, 93, "Welford pushes", size=10, fill="#555")
    fig.line(180, 130, 360, 178, arrow=True)
    fig.line(580, 130, 400, 178, arrow=True)
    count, delta, share = a[0] + b[0], b[1] - a[1], b[0] / (a[0] + b[0])
    lines = [f"count = {a[0]:g} + {b[0]:g} = {count:g}",
             f"delta = b.mean - a.mean = {delta:g};  b_share = b.count / count = {share:g}",
             f"mean = a.mean + delta * b_share = {a[1]:g} + {delta:g} * {share:g} = {merged[1]:g}",
             f"M2 = a.M2 + b.M2 + delta^2 * a.count * b_share = {a[2]:g} + {b[2]:g} + "
             f"{delta * delta:g} * {a[0]:g} * {share:g} = {merged[2]:g}"]
    fig.rect(60, 180, 640, 96, fill="white")
    for i, words in enumerate(lines):
        fig.text(72, 200 + 21 * i, words, size=12)
    fig.line(380, 276, 380, 298, arrow=True)
    fig.box(160, 300, 440, 30, "a + b: " + fmt(merged) + f"; variance = {merged[2] / count:g}",
            fill=REGISTER, weight="bold")
    fig.text(20, 355, "Check: the five values directly give the same mean and M2. Every term is "
             "of the size of the spread", size=11)
    fig.text(20, 371, "(delta, deviations), never of x squared, so a row with mean 10^4 loses "
             "nothing; E[x^2] - E[x]^2 would subtract", size=11)
    fig.text(20, 387, "two numbers near 10^8, where fp32 values are 8 apart. The block merges "
             "through chapter 03's butterfly.", size=11)
    return fig


# ---------------------------------------------------------------- 06


def ch06_residual_fusion():
    """Add then norm as two kernels against one fused kernel, tensors per arrow."""
    tensor_mib = 2048 * 8192 * 4 / 2 ** 20
    fig = Figure(360, "Chapter 06: the fused add + norm moves four tensors, the pair five")
    heading(fig, 20, f"Bytes per arrow, in tensors of 2048 x 8192 fp32 ({tensor_mib:.0f} MiB "
            "each)")
    # Unfused pair.
    y = 60
    fig.text(20, y, "Unfused pair: 2 launches, 5 tensors", size=12, weight="bold")
    fig.box(20, y + 20, 60, 28, "x", fill=MEMORY)
    fig.box(20, y + 70, 60, 28, "r", fill=MEMORY)
    fig.box(160, y + 44, 90, 30, "add", fill=REGISTER)
    fig.box(330, y + 44, 60, 28, "h", fill=MEMORY)
    fig.box(470, y + 44, 90, 30, "norm", fill=REGISTER)
    fig.box(640, y + 44, 60, 28, "y", fill=MEMORY)
    for (x1, y1, x2, y2, label) in [(80, y + 34, 158, y + 54, "1"), (80, y + 84, 158, y + 66, "1"),
                                    (250, y + 58, 328, y + 58, "1"),
                                    (390, y + 58, 468, y + 58, "1 (read back)"),
                                    (560, y + 58, 638, y + 58, "1")]:
        fig.line(x1, y1, x2, y2, arrow=True)
        fig.text((x1 + x2) / 2, min(y1, y2) - 4, label, size=10, anchor="middle", fill="#b00")
    fig.text(330, y + 96, "h also becomes the new residual", size=10, fill="#555")
    # Fused.
    y = 200
    fig.text(20, y, "Fused: 1 launch, 4 tensors; h stays in registers between the add and "
             "the norm", size=12, weight="bold")
    fig.box(20, y + 20, 60, 28, "x", fill=MEMORY)
    fig.box(20, y + 70, 60, 28, "r", fill=MEMORY)
    fig.box(200, y + 40, 220, 38, "h = x + r  ->  norm(h)", fill=REGISTER)
    fig.box(560, y + 20, 140, 28, "h (over r)", fill=MEMORY)
    fig.box(560, y + 70, 140, 28, "y", fill=MEMORY)
    for (x1, y1, x2, y2) in [(80, y + 34, 198, y + 52), (80, y + 84, 198, y + 68),
                             (420, y + 52, 558, y + 34), (420, y + 68, 558, y + 84)]:
        fig.line(x1, y1, x2, y2, arrow=True)
        fig.text((x1 + x2) / 2, min(y1, y2) - 4, "1", size=10, anchor="middle", fill="#b00")
    fig.text(20, y + 130, "If both move their bytes equally well, the fused kernel takes 4/5 of "
             "the pair's time (plus one launch saved).", size=11)
    return fig


# ---------------------------------------------------------------- 07


def ch07_chunks():
    """The chunk grid of a misaligned bf16 row: peeled head, whole vectors, tail."""
    width, lead, cols = 8, 3, 27  # bf16: 8 elements per 16-byte vector; row starts 6 B late
    chunks = (lead + cols + width - 1) // width
    fig = Figure(420, "Chapter 07: chunks on memory's 16-byte grid, the peeled head and the tail")
    heading(fig, 20, f"A bf16 row of {cols} elements starting 6 bytes past a 16-byte boundary "
            f"(lead = {lead})")
    x0, y0, cell = 40, 70, 22
    for c in range(chunks):
        first = c * width - lead
        inside = [0 <= first + j < cols for j in range(width)]
        whole = all(inside)
        for j in range(width):
            e = first + j
            fill = (THREAD[2] if whole else THREAD[3]) if inside[j] else LIGHT
            fig.rect(x0 + (c * width + j) * cell, y0, cell, 26, fill=fill, stroke="white")
            if inside[j]:
                fig.text(x0 + (c * width + j) * cell + cell / 2, y0 + 17, e, size=9,
                         anchor="middle", fill="white")
        fig.rect(x0 + c * width * cell, y0, width * cell, 26, fill="none", stroke=INK, width=1.5)
        kind = "peeled head" if c == 0 else ("whole vector" if whole else "tail")
        fig.text(x0 + (c * width + width / 2) * cell, y0 - 8, f"chunk {c}: {kind}", size=11,
                 anchor="middle")
        fig.text(x0 + (c * width + width / 2) * cell, y0 + 42,
                 f"[{first}, {first + width})", size=10, anchor="middle", fill="#555")
    for c in range(chunks + 1):
        fig.line(x0 + c * width * cell, y0 + 30, x0 + c * width * cell, y0 + 52, stroke=BARRIER)
    fig.text(x0, y0 + 66, "red ticks: 16-byte boundaries of memory; grey: outside the row "
             "(read as 0, never written)", size=10, fill="#555")
    fig.text(x0, y0 + 86, f"chunk c holds elements [c * {width} - lead, (c + 1) * {width} - lead); "
             "whole chunks move as one 16-byte vector,", size=11)
    fig.text(x0, y0 + 102, "only the head and the tail element by element. Thread t keeps "
             "chunks t, t + blockDim.x, ... in registers.", size=11)
    # Which kernel a row gets: vectors of 16 bytes, 4 a thread up to 512 threads, 8 up to 384.
    y = 240
    heading(fig, y, "Which kernel a row gets (every tensor aligned, cols a whole number of "
            "vectors)")
    rows = [("fp32 (4 a vector)", 4), ("bf16 / fp16 (8)", 8)]
    limits = [(4 * 512, "4 vectors, <= 512 threads"), (8 * 384, "8 vectors, <= 384 threads")]
    scale = 560 / (4096 * 8)  # pixels per column, to 32768 columns
    for i, (label, per_vector) in enumerate(rows):
        yy = y + 22 + 44 * i
        fig.text(20, yy + 16, label, size=11)
        start = 0
        colours = [THREAD[2], THREAD[1]]
        for k, (chunks_limit, name) in enumerate(limits):
            end = chunks_limit * per_vector
            fig.rect(160 + start * scale, yy, (end - start) * scale, 22, fill=colours[k],
                     stroke="white")
            fig.text(160 + end * scale - 2, yy + 34, f"{end}", size=9, anchor="middle",
                     fill="#555")
            start = end
        fig.rect(160 + start * scale, yy, (32768 - start) * scale, 22, fill="#bbb",
                 stroke="white")
        fig.text(160 + start * scale + 4, yy + 15, "norm_streaming: reads x per pass", size=9)
    fig.text(20, y + 122, "green: 4 vectors a thread; blue: 8 a thread; grey: streaming "
             "(RMSNorm 2 passes, LayerNorm 3).", size=11)
    fig.text(20, y + 138, "So 4096 x 16384 fp32 is streamed by chapter 07, while chapter 05 "
             "keeps it in registers (1024 threads x 16).", size=11)
    return fig


# ---------------------------------------------------------------- 08


def ch08_column_sums():
    """dweight as a sum over rows: atomics into one row against a persistent grid's partials."""
    rows, blocks, cols = 12, 3, 8
    fig = Figure(640, "Chapter 08: dweight summed over rows, by atomics or by partial rows")
    heading(fig, 20, f"dweight[c] = sum over rows of dy * x_hat: {rows} rows, {blocks} blocks "
            "of a persistent grid")
    x0, y0, cell, high = 40, 48, 22, 18
    # The rows of dy * x_hat, coloured by the block that owns them: row r goes to block
    # r mod gridDim.x, so each block walks rows b, b + 3, b + 6, ...
    for r in range(rows):
        block = r % blocks
        for c in range(cols):
            fig.rect(x0 + c * cell, y0 + r * high, cell, high, fill=THREAD[block],
                     stroke="white")
        fig.text(x0 - 6, y0 + r * high + 13, r, size=9, anchor="end", fill="#555")
    fig.text(x0 + cols * cell / 2, y0 + rows * high + 16, "rows of dy * x_hat", size=11,
             anchor="middle")
    # (b) each block's fp32 register sums -> one partial row each -> fixed-order sum.
    xb = 300
    fig.text(xb, y0 - 2, "(b) deterministic: each thread keeps its columns' sums in fp32", size=11,
             weight="bold")
    fig.text(xb, y0 + 12, "registers while its block walks its rows", size=11, weight="bold")
    for b in range(blocks):
        yy = y0 + 34 + b * 30
        for c in range(cols):
            fig.rect(xb + c * cell, yy, cell, high, fill=THREAD[b], stroke="white")
        fig.text(xb + cols * cell + 8, yy + 13,
                 f"partial row {b}: rows {', '.join(str(r) for r in range(b, rows, blocks))}",
                 size=10)
    fig.line(x0 + cols * cell + 10, y0 + 60, xb - 8, y0 + 60, arrow=True)
    ys = y0 + 34 + blocks * 30 + 20
    for c in range(cols):
        fig.rect(xb + c * cell, ys, cell, high, fill=REGISTER, stroke=INK)
    fig.line(xb + cols * cell / 2, ys - 18, xb + cols * cell / 2, ys - 2, arrow=True)
    fig.text(xb + cols * cell + 8, ys + 13, "sum_partials: partial rows 0, 1, 2 in that order",
             size=10)
    fig.text(xb, ys + 36, "same rows per block, same order of adds: the same bits every run;",
             size=10, fill="#555")
    fig.text(xb, ys + 50, "extra traffic: grid x cols floats written and read once", size=10,
             fill="#555")
    # (a) every block adds into one row with atomics, in the order blocks finish.
    ya = 320
    heading(fig, ya, "(a) the obvious way: one block per row, atomicAdd into one fp32 row")
    finish = [5, 0, 9, 2, 11, 7, 1, 4, 10, 3, 8, 6]  # one possible order of finishing
    for i, r in enumerate(finish):
        fig.rect(x0 + i * cell * 1.5, ya + 16, cell * 1.5, high, fill=LIGHT, stroke="white")
        fig.text(x0 + i * cell * 1.5 + cell * 0.75, ya + 29, r, size=9, anchor="middle")
    fig.text(x0 + len(finish) * cell * 1.5 + 10, ya + 29, "rows, in the order their blocks "
             "happened to finish", size=10)
    fig.text(x0, ya + 58, "fp32 addition is not associative: another order rounds differently, "
             "so dweight's last bits change", size=11)
    fig.text(x0, ya + 74, "from run to run, and every block contends for the same cols "
             "addresses.", size=11)
    narrow_column_sums(fig, 440, cols, cell)
    return fig


def narrow_column_sums(fig, top, cols, cell):
    """(c) narrow rows: a warp a row, the block's warps adding their column sums in shared
    memory in warp order before the block stores one partial row (kNarrowWarps = 8)."""
    warps, x0, high = 8, 40, 11
    heading(fig, top, "(c) narrow rows: a warp a row, 8 warps a block walking rows 8 at a time")
    y0 = top + 14
    for w in range(warps):
        for c in range(cols):
            fig.rect(x0 + c * cell, y0 + w * high, cell, high, fill=THREAD[w], stroke="white")
        fig.text(x0 + cols * cell + 6, y0 + w * high + 9, f"warp {w}", size=9, fill="#555")
    xs, xt = 300, 300 + cols * cell + 8
    fig.line(262, y0 + warps * high / 2, xs - 6, y0 + warps * high / 2, arrow=True)
    fig.rect(xs, y0, cols * cell, warps * high, fill=SHARED)
    fig.text(xs + cols * cell / 2, y0 + warps * high / 2 + 4, "shared memory", size=10,
             anchor="middle")
    for i, words in enumerate(["each warp parks its column sums", "in its row of slots; after a",
                               "barrier, thread c adds column c", "down the warps, warp 0 first"]):
        fig.text(xt, y0 + 12 + 14 * i, words, size=10)
    yp = y0 + warps * high + 22
    for c in range(cols):
        fig.rect(xs + c * cell, yp, cell, 18, fill=REGISTER, stroke=INK)
    fig.line(xs + cols * cell / 2, y0 + warps * high + 2, xs + cols * cell / 2, yp - 2,
             arrow=True)
    fig.text(xt, yp + 13, "the block's one partial row, as in (b)", size=10)
    fig.text(x0, yp + 44, "no barrier inside a row (shuffles only); a grid of a few blocks an SM "
             "stores 264 partial rows", size=11)
    fig.text(x0, yp + 60, "for 8192 x 576 where a block a row stored 1056.", size=11)


# ---------------------------------------------------------------- 09


def ch09_every_width():
    """Narrow rows: a group of lanes per row; and the table that maps a row to its kernel."""
    fig = Figure(516, "Chapter 09: a group of lanes per narrow row, and a kernel per width")
    lanes_per_row, warp = 8, 32
    heading(fig, 20, f"Narrow rows: one warp holds {warp // lanes_per_row} rows, "
            f"{lanes_per_row} lanes each (narrow8x2); the butterfly stays inside the group")
    x0, y0, cell = 40, 50, 21
    offsets = [lanes_per_row // 2 ** k for k in range(1, int(math.log2(lanes_per_row)) + 1)]
    for lane in range(warp):
        group = lane // lanes_per_row
        fig.rect(x0 + lane * cell, y0, cell, 24, fill=THREAD[group], stroke="white")
        fig.text(x0 + lane * cell + cell / 2, y0 + 16, lane, size=9, anchor="middle",
                 fill="white")
    for group in range(warp // lanes_per_row):
        fig.text(x0 + (group + 0.5) * lanes_per_row * cell, y0 + 40, f"row r + {group}",
                 size=11, anchor="middle")
    # The exchanges of lane 0's group at every offset: lane XOR offset, never past the group.
    for level, offset in enumerate(offsets):
        y = y0 + 62 + 22 * level
        fig.text(x0 - 30, y + 4, f"^{offset}", size=10, fill="#555")
        for lane in range(lanes_per_row):
            partner = lane ^ offset
            if partner > lane:
                xa, xb = x0 + (lane + 0.5) * cell, x0 + (partner + 0.5) * cell
                fig.line(xa, y, xb, y, stroke=THREAD[0], width=1.5)
    wrong = 2 * lanes_per_row
    y = y0 + 62 + 22 * len(offsets)
    fig.text(x0 - 30, y + 4, f"^{lanes_per_row}", size=10, fill=BARRIER)
    for lane in range(lanes_per_row):
        xa, xb = x0 + (lane + 0.5) * cell, x0 + ((lane ^ lanes_per_row) + 0.5) * cell
        fig.line(xa, y, xb, y, stroke=BARRIER, width=1.0, dash="3,2")
    fig.text(x0 + wrong * cell + 10, y + 4, f"a sum over {wrong} lanes crosses into row r + 1: "
             "the known-wrong kernel", size=10, fill=BARRIER)
    fig.text(x0, y + 26, f"group_sum<{lanes_per_row}>: offsets {', '.join(map(str, offsets))}; "
             "no shared memory, no __syncthreads, 256 / lanes rows a block", size=11)
    # The decision table (kernels/configs.cpp) on aligned bf16 rows (8 elements a 16-byte chunk), by
    # width: each band is (kernel, widest row it takes, in columns); past the last, chapter 07.
    narrow_cols = 96 * 8  # narrow32x3's 96 chunks
    span = 32768
    many = [("narrow: lanes per row, to 768", narrow_cols), ("block2_256x4", 1024),
            ("block4_128x6", 4096), ("block4_256x3", 8192), ("ch07 or block4", 14336),
            ("block8_256x2", 16384), ("ch07", span)]
    few = [("narrow: lanes per row, to 768", narrow_cols), ("block1", 1024 * 8),
           ("block2", 2048 * 8), ("block8", 3072 * 8), ("ch07", span)]
    top = 250
    heading(fig, top, "Which kernel a bf16 row gets (aligned rows; chunk = 8 elements)")
    scale = 540 / math.log2(span)

    def at(cols):
        return 170 + math.log2(cols) * scale

    for i, (label, bands) in enumerate([("rows > 64", many), ("rows <= 64", few)]):
        yy = top + 36 + 90 * i
        fig.text(20, yy + 16, label, size=11)
        start, thin, last_number = 1, 0, -100.0
        for k, (name, end) in enumerate(bands):
            fill = "#bbb" if name == "ch07" else THREAD[(1 + 2 * k) % 8]
            fig.rect(at(start), yy, at(end) - at(start), 22, fill=fill, stroke="white")
            middle = (at(start) + at(end)) / 2
            if at(end) - at(start) > 7 * len(name):  # the name fits its band
                fig.text(middle, yy + 15, name, size=10, anchor="middle",
                         fill=INK if name == "ch07" else "white")
            else:  # a thin band: its name under it, on one of three lines in turn
                fig.text(middle, yy + 34 + 12 * (thin % 3), name, size=9, anchor="middle",
                         fill="#555")
                thin += 1
            if narrow_cols < end < span:  # the band's widest row, above it
                raised = at(end) - last_number < 30
                fig.text(at(end), yy - (14 if raised else 4), f"{end}", size=9,
                         anchor="middle", fill="#555")
                last_number = -100.0 if raised else at(end)
            start = end
    for k, line in enumerate([
            "Columns on a log scale. Many rows: a block per row, its register cap sized to the "
            "block, so that an SM holds several rows;",
            "from 8200 columns 16-bit LayerNorm rows that whole warps fill take block4's "
            "one-reduction statistics, and past 14336",
            "(LayerNorm: 12288) block8_256x2 holds two rows an SM where chapter 07's block fits "
            "once. Few rows: up to 1024 threads,",
            "one vector a thread while it fits: one load, one reduction, one store. Misaligned "
            "or odd-width rows take the *_any kernels."]):
        fig.text(20, top + 204 + 16 * k, line, size=11)
    return fig


# ---------------------------------------------------------------- 10

# The H100 SXM the book measures on: its SMs, each SM's register file and the most shared
# memory a block may have, and its L2 (NVIDIA's H100 data sheet and the CUDA occupancy tables).
H100_SMS = 132
REGISTERS_PER_SM = 65536
SHARED_BYTES_PER_SM = 227 * 1024
L2_MB = 50
MIB = 1 << 20


def row_strip(fig, x, y, width, slices, label):
    """One row drawn as `slices` pieces, coloured by the block that holds each, cyclically."""
    step = width / slices
    for k in range(slices):
        colour = THREAD[k % len(THREAD)]
        fig.rect(x + k * step, y, step, 16, fill=colour, stroke="white", width=0.3)
    fig.text(x - 6, y + 12, label, size=11, anchor="end")


def cluster_panel(fig, top):
    """(a) A row over the 8 blocks of a cluster: shared-memory stages, pushed totals, inboxes."""
    blocks = 8
    # kernels/cluster.cu's ClusterSum: kInboxes inboxes a block, used in turn, one mbarrier each.
    inboxes = 4
    heading(fig, top, f"(a) Cluster: one row over {blocks} blocks on {blocks} SMs of one GPC; "
            "totals pushed through DSMEM")
    row_strip(fig, 60, top + 14, 660, 2 * blocks, "row")
    fig.text(60, top + 44, "block k keeps chunks v·8B + k·B + t of 3 rows in turn in shared memory "
             "(cp.async): x is read once", size=11)
    gpc_y = top + 56
    fig.rect(30, gpc_y, 700, 150, fill="none", stroke=GREY, dash="6,3")
    fig.text(38, gpc_y + 14, "one GPC", size=10, fill="#555")
    sm_w, gap, x0 = 76, 9, 44
    bus_y = gpc_y + 120
    for k in range(blocks):
        x = x0 + k * (sm_w + gap)
        fig.rect(x, gpc_y + 22, sm_w, 76, fill="white", stroke=THREAD[k], width=1.5)
        fig.text(x + sm_w / 2, gpc_y + 35, f"SM: block {k}", size=10, anchor="middle")
        fig.box(x + 5, gpc_y + 41, sm_w - 10, 24, f"slice {k} ×3", fill=SHARED, size=10)
        fig.box(x + 5, gpc_y + 70, sm_w - 10, 22, f"{inboxes} inboxes + mbar", fill=SHARED,
                size=8)
        fig.line(x + sm_w / 2, gpc_y + 98, x + sm_w / 2, bus_y, stroke=THREAD[k], width=1.5)
    last = x0 + (blocks - 1) * (sm_w + gap) + sm_w / 2
    fig.line(x0 + sm_w / 2, bus_y, last, bus_y, stroke=INK, width=2.5)
    fig.text(38, bus_y + 20, "SM-to-SM network (DSMEM): each block pushes its total into slot k "
             "of every block's inbox (st.async),", size=11)
    fig.text(38, bus_y + 34, "counted on its mbarrier; a block waits on its own, lane k of each "
             "warp reads slot k, the warp adds the 8.", size=11)
    fig.text(38, bus_y + 50, f"No cluster barrier a row: {inboxes} inboxes used in turn. L2 and "
             "DRAM carry only x and y.", size=11, fill=BARRIER)


def whole_gpu_panel(fig, top):
    """(b) A row over every SM: registers plus a stash, partials through L2, a grid barrier."""
    heading(fig, top, f"(b) Whole GPU: one row over all {H100_SMS} SMs; partials through L2, "
            "one grid.sync() a row")
    row_strip(fig, 60, top + 14, 594, H100_SMS, "row")
    columns, cell = 33, 18
    sm_y = top + 40
    for sm in range(H100_SMS):
        x, y = 60 + (sm % columns) * cell, sm_y + (sm // columns) * cell
        colour = THREAD[sm % len(THREAD)]
        fig.rect(x, y, cell - 3, (cell - 3) * 0.6, fill=REGISTER, stroke=colour, width=0.8)
        fig.rect(x, y + (cell - 3) * 0.6, cell - 3, (cell - 3) * 0.4, fill=SHARED, stroke=colour,
                 width=0.8)
    legend_x = 60 + columns * cell + 10
    fig.text(legend_x, sm_y + 10, "one SM:", size=10)
    fig.rect(legend_x, sm_y + 16, 12, 8, fill=REGISTER)
    fig.text(legend_x + 16, sm_y + 24, "registers", size=10)
    fig.rect(legend_x, sm_y + 30, 12, 8, fill=SHARED)
    fig.text(legend_x + 16, sm_y + 38, "shared: stash", size=10)
    fig.text(legend_x + 16, sm_y + 50, "or parameters", size=10)
    scratch_y = sm_y + math.ceil(H100_SMS / columns) * cell + 22
    fig.line(150, scratch_y - 20, 150, scratch_y - 2, arrow=True)
    fig.text(156, scratch_y - 8, "each block writes its partial", size=10, fill="#555")
    fig.line(330, scratch_y - 2, 330, scratch_y - 20, arrow=True)
    fig.text(336, scratch_y - 8, "each block reads them all", size=10, fill="#555")
    fig.box(60, scratch_y, 320, 26, "global scratch: partials[row parity][block]", fill=MEMORY,
            size=11)
    fig.line(396, scratch_y + 13, 430, scratch_y + 13, stroke=BARRIER, width=2.5)
    fig.text(436, scratch_y + 10, "grid.sync() between: every partial written", size=11,
             fill=BARRIER)
    fig.text(436, scratch_y + 24, "and visible before any block reads one", size=11,
             fill=BARRIER)
    registers_mib = H100_SMS * REGISTERS_PER_SM * 4 / MIB
    shared_mib = H100_SMS * SHARED_BYTES_PER_SM / MIB
    # whole_gpu.cu: blocks of 256 threads, two an SM, for fp32 rows on the 16-byte grid: the lean
    # kernel keeps 8 vectors of 16 bytes a thread in registers, the held form up to 16.
    lean_mib = 2 * H100_SMS * 256 * 8 * 16 / MIB
    held_mib = 2 * H100_SMS * 256 * 16 * 16 / MIB
    y = scratch_y + 42
    fig.text(60, y, f"{H100_SMS} SMs hold {registers_mib:.0f} MiB of registers and "
             f"{shared_mib:.0f} MiB of shared memory. The lean kernel keeps {lean_mib:.2f} MiB "
             "of an fp32 row", size=11)
    fig.text(60, y + 14, f"in registers, the rest in the stash; the held form keeps up to "
             f"{held_mib:.1f} MiB there (a {4194304 * 4 / MIB:.0f} MiB row whole)", size=11)
    fig.text(60, y + 28, "and the parameters in shared memory, read once for all rows. Partials "
             "merged in one order, read with __ldcg", size=11)
    fig.text(60, y + 42, "(L2, never a stale L1 line): (count, mean, M2), Chan's formula "
             "(RMSNorm: mean 0).", size=11)


def split_panel(fig, top):
    """(c) The portable fallback: phase 1 reads x for the partials, phase 2 reads it again."""
    heading(fig, top, "(c) Split, two kernels: no cluster, no co-residency needed; x read twice")
    y = top + 26
    fig.box(20, y + 22, 70, 28, "x", fill=MEMORY)
    fig.box(150, y, 190, 30, "phase 1: rows × S blocks", fill=REGISTER, size=11)
    fig.box(400, y, 150, 30, "partials (scratch)", fill=MEMORY, size=11)
    fig.box(150, y + 50, 190, 30, "phase 2: the same grid", fill=REGISTER, size=11)
    fig.box(620, y + 50, 70, 28, "y", fill=MEMORY)
    fig.line(90, y + 30, 148, y + 15, arrow=True)
    fig.text(100, y + 12, "read 1", size=10, fill="#555")
    fig.line(90, y + 42, 148, y + 65, arrow=True)
    fig.text(100, y + 76, "read 2", size=10, fill="#555")
    fig.line(340, y + 15, 398, y + 15, arrow=True)
    fig.line(475, y + 30, 342, y + 58, arrow=True)
    fig.line(340, y + 65, 618, y + 65, arrow=True)
    fig.text(480, y + 60, "write", size=10, fill="#555")
    fig.line(140, y + 40, 560, y + 40, stroke=BARRIER, width=2, dash="5,3")
    fig.text(566, y + 44, "kernel boundary: the barrier", size=11, fill=BARRIER)
    fig.text(20, y + 104, "Each block reduces its slice of a row to a partial; phase 2 merges the "
             "row's S partials in a fixed order and normalises.", size=11)
    fig.text(20, y + 120, f"3 passes (x, x, y) where (a) and (b) make 2: at most 2/3 of the copy "
             f"roof unless the second read finds x in L2 ({L2_MB} MB on an H100).", size=11)


def ch10_huge_rows():
    """Where a row lives when one block cannot hold it: a cluster, the whole GPU, or memory."""
    fig = Figure(668, "Chapter 10: where a row lives when one block cannot hold it")
    cluster_panel(fig, 20)
    whole_gpu_panel(fig, 270)
    split_panel(fig, 508)
    return fig


# Chapter 11's decode example, 576 -> 960 (SmolLM2-135M), as fused.cu splits it: the cluster
# kernel's 192-column tiles (kGroups warpgroups of 64) and K over up to 8 blocks in units of 32
# rows (split_units_for);
# the warp split's blocks of one tile of 8 columns for all of K (3 tiles only at up to 16 tokens
# through K past 1024, launch_warp_split) and K in units of 32 rows (kUnitRows, kPackRows) dealt
# to 8 warps, up to 3 units a warp loaded at once (kUnits).
CH11_K, CH11_N, CH11_WARPS, CH11_GROUP_COLS = 576, 960, 8, 3 * 64
CH11_TILE, CH11_UNIT, CH11_UNITS_A_WARP = 8, 32, 3
# A lane's share of a unit of packed W*: one 16-byte load (8 rows of K of one column); a warp's
# 32 lanes load the unit's W* as that many consecutive bytes (pack_doc, ch11.cuh).
CH11_LANE_BYTES, CH11_WARP_LANES = 16, 32


def ch11_k_split_panel(fig, top):
    """(b) Where K goes in the two fused kernels: over a cluster's blocks, or a block's warps."""
    units = -(-CH11_K // CH11_UNIT)
    split_rows = -(-units // 8) * CH11_UNIT
    blocks = -(-CH11_K // split_rows)
    # One pass of the warps: every unit is among some warp's first CH11_UNITS_A_WARP, in flight
    # at once.
    assert units <= CH11_WARPS * CH11_UNITS_A_WARP
    dealt = ", ".join(["w"] + [f"w + {i * CH11_WARPS}" for i in range(1, CH11_UNITS_A_WARP)])
    heading(fig, top, f"(b) The fused kernels, {CH11_K} → {CH11_N}: where K goes")
    for half, (title, tile, note) in enumerate([
            (f"cluster split: {-(-CH11_N // CH11_GROUP_COLS)} tiles of {CH11_GROUP_COLS} columns"
             f" × {blocks} blocks", CH11_GROUP_COLS,
             [f"block k: rows [{split_rows}k, {split_rows}(k+1)) of K, on its own SM",
              "W* in registers, x in shared memory: wgmma",
              "sums added through DSMEM: two cluster barriers"]),
            (f"warp split: {-(-CH11_N // CH11_TILE)} tiles of {CH11_TILE} columns × 1 block",
             CH11_TILE, [f"warp w: units {dealt} of {CH11_UNIT} rows, loaded at once",
                         f"W* packed in the tensor cores' order: "
                         f"{CH11_LANE_BYTES * CH11_WARP_LANES} B a warp a unit",
                         "sums added in shared memory: one block barrier"])]):
        x0 = 20 + half * 375
        fig.text(x0, top + 22, title, size=11, weight="bold")
        # W* as K (down) by N (across), the tile highlighted, its K coloured by owner.
        wx, wy, ww, wh = x0 + 10, top + 40, 120, 144
        fig.rect(wx, wy, ww, wh, fill=LIGHT, stroke=GREY)
        fig.text(wx + ww / 2, wy - 3, "W*: K × N", size=10, anchor="middle", fill="#555")
        tx, tw = wx + 20, ww * tile / CH11_N * 4
        if half == 0:
            for k in range(blocks):
                rows = min(split_rows, CH11_K - k * split_rows)
                fig.rect(tx, wy + wh * k * split_rows / CH11_K, tw, wh * rows / CH11_K,
                         fill=THREAD[k], stroke="white", width=0.3)
        else:
            for unit in range(units):
                rows = min(CH11_UNIT, CH11_K - unit * CH11_UNIT)
                fig.rect(tx, wy + wh * unit * CH11_UNIT / CH11_K, tw, wh * rows / CH11_K,
                         fill=THREAD[unit % CH11_WARPS], stroke="white", width=0.2)
        # Where the owners run.
        sx, sy = wx + ww + 24, top + 46
        if half == 0:
            for k in range(blocks):
                y = sy + k * 17
                fig.box(sx, y, 96, 14, f"SM: block {k}", fill=SHARED, size=9, stroke=THREAD[k])
            fig.line(sx + 104, sy, sx + 104, sy + 17 * blocks - 3, stroke=BARRIER, width=2.5)
            fig.text(sx + 110, sy + 60, "DSMEM", size=10, fill=BARRIER)
        else:
            # Each warp's units, in its registers straight from L2: no shared memory on the way in.
            fig.rect(sx, sy - 4, 200, 17 * CH11_WARPS + 6, fill="none", stroke=GREY, dash="5,3")
            fig.text(sx + 200, sy - 8, "one SM, one block; units in registers", size=9,
                     anchor="end", fill="#555")
            for w in range(CH11_WARPS):
                y = sy + w * 17
                fig.box(sx + 4, y, 60, 14, f"warp {w}", fill=REGISTER, size=9, stroke=THREAD[w])
                for i, unit in enumerate(range(w, units, CH11_WARPS)):
                    fig.box(sx + 68 + i * 43, y, 40, 14, f"unit {unit}", fill=REGISTER, size=8,
                            stroke=THREAD[w])
        for i, words in enumerate(note):
            fig.text(x0, top + 198 + 15 * i, words, size=11)


def ch11_flashnorm():
    """Norm then linear three ways: what each path writes to memory and how many launches."""
    fig = Figure(570, "Chapter 11: RMSNorm then a linear layer, three ways")
    heading(fig, 20, "Y = rmsnorm(X; g) · W = diag(1/rms(X)) · (X · W*), W* = diag(g) · W")
    paths = [
        ("plain", [("norm", REGISTER), ("X̂ ⊙ g: M·K", MEMORY), ("GEMM with W", REGISTER)],
         "2 launches; X̂ written and read back"),
        ("deferred", [("1/RMS", REGISTER), ("M floats", MEMORY), ("GEMM with W*, rows scaled", REGISTER)],
         "2 launches; 1/RMS in cuBLASLt's epilogue"),
        ("fused", [("1/RMS and X · W* in one kernel", REGISTER)],
         "1 launch; nothing between, M <= 64; two kernels, (b)"),
    ]
    top = 50
    for row, (name, steps, note) in enumerate(paths):
        y = top + row * 80
        fig.text(20, y + 24, name, size=13, weight="bold")
        x = 110
        for label, fill in steps:
            width = 16 + 7 * len(label)
            fig.box(x, y + 6, width, 28, label, fill=fill, size=11)
            x += width + 18
            fig.line(x - 16, y + 20, x - 3, y + 20, arrow=True)
        fig.box(x, y + 6, 70, 28, "Y: M·N", fill=MEMORY, size=11)
        fig.text(110, y + 54, note, size=11, fill=GREY)
    fig.text(20, top + 250, "Orange: work in registers; blue: bytes in device memory. W (K·N) "
             "is read once on every path: at decode sizes that read is the time.", size=11)
    ch11_k_split_panel(fig, 330)
    return fig


# ---------------------------------------------------------------- 12

# Chapter 12's headline problem (issue 19's acceptance shape): bf16 rows split over 2 GPUs,
# and the bytes of a row's moments (device::Moments: count, mean, M2, three floats).
CH12_ROWS, CH12_COLS, CH12_GPUS, BF16_BYTES = 16384, 8192, 2, 2
MOMENT_BYTES = 3 * 4
NETWORK = "#dadaeb"


def columns_of(cols, ranks, rank):
    """ch12::columns_of (group.cpp): rank's [first, first + count); the first cols % ranks
    ranks hold one column more."""
    share, extra = divmod(cols, ranks)
    return rank * share + min(rank, extra), share + (1 if rank < extra else 0)


def paragraph(fig, x, y, lines, leading=16):
    """Lines of size-11 text, one under the other."""
    for i, words in enumerate(lines):
        fig.text(x, y + leading * i, words, size=11)


def box_lines(fig, x, y, w, h, lines, fill, size=11):
    """A box with one to three centred lines of text."""
    fig.rect(x, y, w, h, fill=fill)
    top = y + h / 2 - (len(lines) - 1) * (size + 2) / 2 + size * 0.35
    for i, words in enumerate(lines):
        fig.text(x + w / 2, top + i * (size + 2), words, size=size, anchor="middle")


def sharded_matrix_panel(fig, top):
    """(a) The tensor's columns sliced over the GPUs; the ragged rule beside it."""
    heading(fig, top, f"(a) {CH12_ROWS} x {CH12_COLS} bf16 over {CH12_GPUS} GPUs: each holds "
            f"a slice of the columns of every row")
    x0, y0, w, h = 20, top + 16, 220, 130
    for rank in range(CH12_GPUS):
        first, count = columns_of(CH12_COLS, CH12_GPUS, rank)
        x, width = x0 + w * first / CH12_COLS, w * count / CH12_COLS
        fig.rect(x, y0, width, h, fill=THREAD[1 + 2 * rank], stroke="white")
        fig.text(x + width / 2, y0 + h / 2 + 4, f"GPU {rank}", size=12, anchor="middle",
                 weight="bold", fill="white")
        fig.text(x + width / 2, y0 + h + 14, f"columns {first}-{first + count - 1}", size=10,
                 anchor="middle", fill="#555")
    for r in range(1, 8):
        fig.line(x0, y0 + h * r / 8, x0 + w, y0 + h * r / 8, stroke="white", width=0.6)
    fig.rect(x0, y0, w, h, fill="none")
    ragged_cols = CH12_COLS + 1
    ragged = [columns_of(ragged_cols, CH12_GPUS, rank)[1] for rank in range(CH12_GPUS)]
    paragraph(fig, 262, top + 32, [
        "columns_of(cols, ranks, rank): rank r holds [first, first + count) of every row,",
        f"here {columns_of(CH12_COLS, CH12_GPUS, 0)[1]} each; weight and bias are sliced the "
        "same way.",
        f"Ragged: {ragged_cols} columns give {' + '.join(map(str, ragged))} (the first "
        "cols % ranks ranks hold one more).",
        "No GPU holds a whole row, so a row's statistics need every GPU's moments:",
        "chapter 10's split row, its parts on different GPUs and NCCL between the passes.",
        "One process drives every GPU: a communicator and a stream each (ncclCommInitAll).",
    ], leading=18)


def exchange_panel(fig, top):
    """(b) Each GPU's pass 1 writes a column of moments; NCCL exchanges them; pass 2."""
    share = columns_of(CH12_COLS, CH12_GPUS, 0)[1]
    moment_bytes = CH12_ROWS * MOMENT_BYTES
    heading(fig, top, f"(b) Pass 1, the exchange ({MOMENT_BYTES} bytes a row), pass 2: a warp a "
            "row of the slice")
    lane_top, lane_gap, lane_h = top + 36, 92, 40
    nccl_x, nccl_w = 372, 190
    for rank in range(CH12_GPUS):
        y = lane_top + rank * lane_gap
        colour = THREAD[1 + 2 * rank]
        fig.rect(20, y, 100, lane_h, fill=MEMORY, stroke=colour, width=2)
        for i, words in enumerate([f"x on GPU {rank}", f"{CH12_ROWS} x {share}"]):
            fig.text(70, y + 17 + 14 * i, words, size=11, anchor="middle")
        box_lines(fig, 160, y, 110, lane_h, ["pass 1:", "slice_moments"], REGISTER)
        fig.line(120, y + 20, 158, y + 20, arrow=True)
        fig.text(124, y + 34, "read 1", size=10, fill="#555")
        # The moments: one (count, mean, M2) a row, a column of them.
        for r in range(8):
            fig.rect(298, y + r * lane_h / 8, 22, lane_h / 8, fill=MEMORY, stroke=colour,
                     width=0.6)
        fig.line(270, y + 20, 296, y + 20, arrow=True)
        fig.text(309, y + lane_h + 12, f"{moment_bytes:,} B", size=9, anchor="middle",
                 fill="#555")
        fig.line(320, y + 20, nccl_x - 2, y + 20, arrow=True)
        box_lines(fig, 600, y, 110, lane_h, ["pass 2: merge,", "normalise slice"], REGISTER)
        fig.line(nccl_x + nccl_w, y + 20, 598, y + 20, arrow=True)
        fig.rect(728, y + 6, 26, 28, fill=MEMORY, stroke=colour, width=2)
        fig.text(741, y + 24, "y", size=11, anchor="middle")
        fig.line(710, y + 20, 726, y + 20, arrow=True)
        # The second read of the slice, around the lane on the side away from the other GPU's.
        edge, outside = (y, y - 14) if rank == 0 else (y + lane_h, y + lane_h + 14)
        fig.line(70, edge, 70, outside, stroke=GREY)
        fig.line(70, outside, 655, outside, stroke=GREY)
        fig.line(655, outside, 655, edge + (outside - edge) / 7, stroke=GREY, arrow=True)
        fig.text(520, outside + (-4 if rank == 0 else 12), "read 2: the slice again", size=10,
                 anchor="middle", fill="#555")
    nccl_h = lane_gap * (CH12_GPUS - 1) + lane_h
    fig.rect(nccl_x, lane_top, nccl_w, nccl_h, fill=NETWORK)
    lines = [("NCCL, one group call", "bold"),
             ("RMSNorm: all-reduce (sum)", "normal"),
             (f"of {3 * CH12_ROWS:,} floats", "normal"),
             ("LayerNorm: all-gather, rank", "normal"),
             ("by rank; each GPU merges", "normal"),
             ("them in a fixed order", "normal")]
    for i, (words, weight) in enumerate(lines):
        fig.text(nccl_x + nccl_w / 2, lane_top + 18 + 16 * i, words, size=11, anchor="middle",
                 weight=weight)
    slice_bytes = CH12_ROWS * share * BF16_BYTES
    whole_bytes = 2 * CH12_ROWS * CH12_COLS * BF16_BYTES
    paragraph(fig, 20, lane_top + nccl_h + 46, [
        f"A GPU moves its slice ({slice_bytes / 1e6:.1f} MB) three times: read, read, write "
        f"({3 * slice_bytes / 1e6:.1f} MB); one GPU with the whole",
        f"tensor reads it and writes it once ({whole_bytes / 1e6:.1f} MB). The exchange is "
        f"{moment_bytes:,} B a GPU: its time is NCCL's latency, not bandwidth."])


def overlap_panel(fig, top):
    """(c) Part 3, schematic: the GEMM on the raw slice runs while the moments travel."""
    heading(fig, top, "(c) The next projection's GEMM on the raw slice hides the exchange "
            "(schematic, not to scale)")
    # Lengths in arbitrary units, only their order matters: the GEMM outlasts the exchange.
    moments, exchange, rstd, normalise, gemm, scale = 50, 45, 28, 80, 280, 80
    x0, unit, bar = 140, 1.25, 22

    def bars(y, stages):
        x = x0
        for label, length, fill in stages:
            if label:
                fig.box(x, y, length * unit, bar, label, fill=fill, size=10)
            x += length * unit
        return x

    y = top + 22
    fig.text(20, y + 15, "normalise first", size=11)
    end = bars(y, [("moments", moments, REGISTER), ("all-reduce", exchange, NETWORK),
                   ("normalise", normalise, REGISTER), ("GEMM: (X̂ ⊙ g) · W", gemm, LIGHT)])
    fig.text(end + 4, y + 15, "end", size=10, fill="#555")
    y_compute, y_comm = top + 72, top + 112
    fig.text(20, y_compute + 15, "overlapped: compute", size=11)
    fig.text(20, y_comm + 15, "overlapped: comm", size=11)
    start = bars(y_compute, [("moments", moments, REGISTER)])
    gemm_end = bars(y_compute, [(None, moments, None), ("GEMM: X · W* (raw slice)", gemm, LIGHT)])
    end = bars(y_compute, [(None, moments + gemm, None), ("scale rows", scale, REGISTER)])
    fig.text(end + 4, y_compute + 15, "end", size=10, fill="#555")
    rstd_end = bars(y_comm, [(None, moments, None), ("all-reduce", exchange, NETWORK),
                             ("1/RMS", rstd, REGISTER)])
    fig.line(start, y_compute + bar, start, y_comm - 1, stroke=BARRIER, arrow=True)
    fig.text(start + 4, y_comm - 6, "event: moments written", size=9, fill=BARRIER)
    fig.line(rstd_end, y_comm, gemm_end, y_compute + bar + 1, stroke=BARRIER, dash="4,3",
             arrow=True)
    fig.text(rstd_end + 8, y_comm + 15, "event: 1/RMS ready; scale rows waits for it", size=9,
             fill=BARRIER)
    paragraph(fig, 20, top + 160, [
        "Every GPU computes P = X · W* (W* = diag(g) · W, chapter 11) while the moments travel, "
        "then scales row m of P",
        "by 1 / RMS_m, the same factor on every GPU, so it commutes with the row-parallel layer's "
        "sum of P over the GPUs.",
        "The exchange leaves the critical path while the GEMM outlasts it; scale rows moves M·N "
        "values where normalise moves M·K/G."])


def ch12_across_gpus():
    """A row split across GPUs: where it lives, the exchange between the passes, the overlap."""
    fig = Figure(680, "Chapter 12: a row split across GPUs, its moments exchanged through NCCL")
    for panel, top in ((sharded_matrix_panel, 20), (exchange_panel, 210), (overlap_panel, 470)):
        panel(fig, top)
    return fig


# ---------------------------------------------------------------- 13

REPO = Path(__file__).resolve().parent.parent
# Chapter 13's figure reads the code and the committed table, not typed numbers: chapter 09's
# configurations (kernels/configs.hpp) and the H200's tuned table (kernels/tuned/).
CONFIG_LINE = re.compile(r'\{Kind::(narrow|block|wide|slim|staged), (\d+), (\d+), (\w+), \d+, (?:true|false), '
                         r'(?:true|false), "(\w+)"')
CH13_OP, CH13_DTYPE, CH13_CHUNK_ELEMENTS = "rmsnorm", "bf16", 8
CH13_GPU = "nvidia-h200"         # the table the page names, whatever other GPUs' tables join it
CH13_COLS = 4096                 # the width whose space the top panel prunes
CH13_CALL = (100, 5000)          # an off-grid call (rows, cols) for the bottom panel
FAMILY_COLOUR = {"lanes": THREAD[2], "block": THREAD[1], "slim": THREAD[7], "general": "#bbb",
                 "cluster": THREAD[3], "cluster_row": THREAD[6], "whole_gpu": THREAD[4],
                 "split": THREAD[5], "staged": THREAD[0]}


def kernel_configs():
    """(name, kind, chunks a row it holds or 0 for any) of every entry of kConfigs, in order."""
    text = (REPO / "kernels" / "configs.hpp").read_text()
    threads = {"kNarrowThreads": 256}
    found = []
    for kind, lanes, vectors, max_threads, name in CONFIG_LINE.findall(text):
        holders = int(lanes) if int(lanes) > 0 else threads.get(max_threads) or int(max_threads)
        found.append((name, kind, 0 if kind == "wide" else holders * int(vectors)))
    return found


def tuned_points(op, dtype):
    """The committed table's (rows, cols, fastest candidate) for one op and dtype, and its name."""
    path = sorted((REPO / "kernels" / "tuned").glob(f"{CH13_GPU}.*.tsv"))[0]
    points = []
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split("\t")
        if fields[0] == op and fields[1] == dtype:
            points.append((int(fields[2]), int(fields[3]), fields[4].split(" ")[0].split("=")[0]))
    return points, path.name


def nearest(points, rows, cols):
    """The grid point the chooser takes first (api/src/tuned_table.cpp's nearest_pick): within an
    octave of columns, the least column octaves plus a quarter of the row octaves."""
    near = [(abs(math.log2(c / cols)) + abs(math.log2(r / rows)) / 4, (r, c))
            for r, c, _ in points if abs(math.log2(c / cols)) <= 1]
    return min(near)[1]


def between(grid, value):
    """Where @p value falls among the sorted @p grid, as a fractional index, on a log scale."""
    below = max(i for i, g in enumerate(grid) if g <= value)
    if grid[below] == value:
        return below
    return below + math.log2(value / grid[below]) / math.log2(grid[below + 1] / grid[below])


def ch13_space_panel(fig, top):
    chunks = CH13_COLS // CH13_CHUNK_ELEMENTS
    configs = kernel_configs()
    heading(fig, top, f"The space: chapter 09's {len(configs)} configurations at a bf16 row of "
            f"{CH13_COLS} columns ({chunks} chunks of 16 bytes)")
    x0, width, bar = 150, 560, 7
    most = max(held for _, _, held in configs)
    at = lambda held: x0 + width * math.log2(held) / math.log2(most)
    kept = 0
    for i, (name, kind, held) in enumerate(configs):
        y = top + 14 + i * (bar + 1)
        fits = held == 0 or held >= chunks
        kept += fits
        family = {"wide": "general", "narrow": "lanes"}.get(kind, kind)
        colour = FAMILY_COLOUR[family] if fits else LIGHT
        end = at(most) if held == 0 else at(held)
        fig.rect(x0, y, end - x0, bar, fill=colour, stroke="white", width=0.3)
        fig.text(x0 - 4, y + bar - 1, name, size=7, anchor="end", fill=INK if fits else GREY)
    bottom = top + 14 + len(configs) * (bar + 1)
    fig.line(at(chunks), top + 10, at(chunks), bottom, stroke=BARRIER, width=1.5, dash="4,2")
    fig.text(at(chunks) + 4, top + 22, f"the row: {chunks} chunks", size=10, fill=BARRIER)
    for power in range(0, int(math.log2(most)) + 1, 2):
        fig.text(at(2 ** power), bottom + 12, f"{2 ** power}", size=9, anchor="middle", fill="#555")
    fig.text(x0 + width / 2, bottom + 26, "chunks of a row a configuration holds (log scale; "
             "wide: any)", size=10, anchor="middle")
    fig.text(x0 + width - 150, top + 40, f"kept {kept} of {len(configs)}:", size=11, weight="bold")
    fig.text(x0 + width - 150, top + 55, "every bar that reaches the", size=10)
    fig.text(x0 + width - 150, top + 68, "row; the grey ones are pruned", size=10)
    fig.text(x0 + width - 150, top + 81, "before anything is timed", size=10)
    return bottom + 34


def ch13_table_panel(fig, top):
    points, table = tuned_points(CH13_OP, CH13_DTYPE)
    heading(fig, top, f"The table: the fastest family at each grid point, bf16 RMSNorm ({table})")
    widths = sorted({c for _, c, _ in points})
    row_counts = sorted({r for r, _, _ in points if r <= 256})
    x0, y0, cell_w, cell_h = 90, top + 20, 22, 20
    levels = row_counts + ["many"]
    for j, level in enumerate(levels):
        fig.text(x0 - 6, y0 + j * cell_h + 14, f"{level} rows" if level != "many" else
                 "128 MiB", size=9, anchor="end")
    for i, cols in enumerate(widths):
        fig.text(x0 + i * cell_w + cell_w / 2, y0 + len(levels) * cell_h + 10,
                 f"{cols // 1024}k" if cols >= 1024 and cols % 1024 == 0 else str(cols), size=7,
                 anchor="middle", fill="#555")
        column = sorted((r, key) for r, c, key in points if c == cols)
        for j, (rows, key) in enumerate(column):
            family = key.split("/")[0]
            fig.rect(x0 + i * cell_w, y0 + j * cell_h, cell_w, cell_h,
                     fill=FAMILY_COLOUR.get(family, GREY), stroke="white")
    fig.text(x0 + len(widths) * cell_w / 2, y0 + len(levels) * cell_h + 24, "columns",
             size=10, anchor="middle")
    legend_x = x0 + len(widths) * cell_w + 16
    for k, (family, colour) in enumerate(FAMILY_COLOUR.items()):
        fig.rect(legend_x, y0 + 16 * k, 12, 12, fill=colour, stroke="white")
        fig.text(legend_x + 16, y0 + 16 * k + 10, family, size=10)
    # An off-grid call and the grid point the chooser takes for it.
    rows, cols = CH13_CALL
    near_rows, near_cols = nearest(points, rows, cols)
    call_x = x0 + (between(widths, cols) + 0.5) * cell_w
    call_y = y0 + (between(row_counts, rows) + 0.5) * cell_h
    fig.rect(call_x - 4, call_y - 4, 8, 8, fill="white", stroke=BARRIER, width=2)
    fig.line(call_x, call_y, x0 + (widths.index(near_cols) + 0.5) * cell_w,
             y0 + (row_counts.index(near_rows) + 0.5) * cell_h, stroke=BARRIER, width=1.5,
             arrow=True)
    key = next(k for r, c, k in points if (r, c) == (near_rows, near_cols))
    note_y = y0 + len(levels) * cell_h + 44
    fig.text(20, note_y, f"A call of {rows} x {cols} is off the grid: the chooser takes the "
             f"nearest point within an octave of columns,", size=11)
    fig.text(20, note_y + 16, f"counting rows a quarter as much: {near_rows} x {near_cols}, "
             f"whose fastest is {key}; the first of its ranking that takes the call runs.",
             size=11)
    return note_y + 30


def ch13_tuning_by_search():
    """The configuration space pruned at one width, and the tuned table the chooser reads."""
    fig = Figure(640, "Chapter 13: a space of configurations, pruned, timed, and a table read "
                 "at the nearest grid point")
    below = ch13_space_panel(fig, 20)
    end = ch13_table_panel(fig, below + 10)
    fig.height = int(end)
    return fig


FIGURES = {
    "ch00_idea.svg": ch00_roofline,
    "ch01_idea.svg": ch01_thread_per_row,
    "ch02_idea.svg": ch02_block_tree,
    "ch03_idea.svg": ch03_warp_shuffle,
    "ch04_idea.svg": ch04_fused_float4,
    "ch05_idea.svg": ch05_welford,
    "ch06_idea.svg": ch06_residual_fusion,
    "ch07_idea.svg": ch07_chunks,
    "ch08_idea.svg": ch08_column_sums,
    "ch09_idea.svg": ch09_every_width,
    "ch10_idea.svg": ch10_huge_rows,
    "ch11_idea.svg": ch11_flashnorm,
    "ch12_idea.svg": ch12_across_gpus,
    "ch13_idea.svg": ch13_tuning_by_search,
}


def drawn():
    return {name: draw().svg() for name, draw in FIGURES.items()}


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        folder = Path(argv[2])
        stale = [name for name, svg in drawn().items()
                 if not (folder / name).exists() or (folder / name).read_text() != svg]
        extra = sorted(p.name for p in folder.glob("ch*_idea.svg") if p.name not in FIGURES)
        for name in stale:
            print(f"draw_ideas: {folder / name} differs from what the script draws")
        for name in extra:
            print(f"draw_ideas: {folder / name} is drawn by nothing")
        if stale or extra:
            print("draw_ideas: run book/draw_ideas.py book/images and commit the result")
            return 1
        print(f"draw_ideas: {len(FIGURES)} figures match")
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):  # an option is not a folder to draw into
        print(__doc__, file=sys.stderr)
        return 0 if argv[1:] in (["-h"], ["--help"]) else 2
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, svg in drawn().items():
        (out / name).write_text(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
