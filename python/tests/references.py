# SPDX-License-Identifier: Apache-2.0
"""What the tests compare with: float64 results of PyTorch's own functions on the same
(rounded) inputs, inputs that are not uniform, and the comparison of compare_peers.py with
normlab's per-dtype tolerances (common/src/compare.cpp)."""
import math

import torch
import torch.nn.functional as F
from compare_peers import compare, tolerances

NAMES = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}
TOLERANCES = tolerances()


def tolerance(dtype, rows=None):
    """(abs, rel) for a tensor stored in @p dtype; a sum over @p rows (a parameter gradient)
    gets abs * sqrt(rows), as compare_peers.py."""
    abs_, rel = TOLERANCES[NAMES[dtype]]
    return (abs_ * math.sqrt(rows), rel) if rows else (abs_, rel)


def assert_close(what, got, want, dtype=None, rows=None):
    """Every element within abs + rel * |want| (NaN fails), dtype defaulting to got's."""
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)}, want {tuple(want.shape)}"
    report = compare(got, want, tolerance(dtype or got.dtype, rows))
    assert report["mismatches"] == 0, f"{what}: {report}"


def rows_of(x):
    return x.numel() // x.shape[-1] if x.shape[-1] else 0


def activations(shape, dtype, generator, device="cuda"):
    """Rows of different scales and offsets (a uniform input hides a wrong mean or a row mixed
    up with another)."""
    rows = shape[:-1] + (1,)
    scale = 0.25 + 4 * torch.rand(rows, generator=generator, device=device)
    offset = 0.5 * torch.randn(rows, generator=generator, device=device)
    x = torch.randn(shape, generator=generator, device=device) * scale + offset
    return x.to(dtype)


def parameter(cols, dtype, generator, centre=1.0, device="cuda"):
    return (centre + 0.5 * torch.randn(cols, generator=generator, device=device)).to(dtype)


def rms_norm(x, weight, eps, gemma=False, bias=None):
    """float64 RMSNorm by PyTorch (weight + 1 with gemma), + bias when given."""
    w = None if weight is None else weight.double() + (1 if gemma else 0)
    y = F.rms_norm(x.double(), (x.shape[-1],), w, eps)
    return y if bias is None else y + bias.double()


def layer_norm(x, weight, bias, eps):
    def wide(t):
        return None if t is None else t.double()
    return F.layer_norm(x.double(), (x.shape[-1],), wide(weight), wide(bias), eps)


def gradients(function, dy, *inputs):
    """float64 autograd of function(*inputs) against dy: a gradient per input (None for
    None)."""
    leaves = [None if t is None else t.detach().double().requires_grad_() for t in inputs]
    y = function(*leaves)
    y.backward(dy.double())
    return [None if t is None else t.grad for t in leaves]
