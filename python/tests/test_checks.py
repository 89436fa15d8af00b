# SPDX-License-Identifier: Apache-2.0
"""normlab_torch without a GPU: the ops' checks and fake implementations on meta tensors
(shapes only), and torch.compile tracing them, on both paths of the eager calls (the compiled
extension normlab_torch._C, which takes meta tensors through its checks, and ctypes). Needs
PyTorch and libnormlab_capi.so."""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")

import normlab_torch as nt  # noqa: E402  (a missing library fails here, naming where it looked)

pytestmark = pytest.mark.usefixtures("backend")


def meta(*shape, dtype=torch.bfloat16):
    return torch.empty(shape, dtype=dtype, device="meta")


X = meta(2, 3, 64)
W = meta(64, dtype=torch.float32)


def test_forward_outputs_shapes_and_dtypes():
    y, rstd = torch.ops.normlab.rms_norm(X, W, None, 1e-6, False)
    assert (y.shape, y.dtype, rstd.shape, rstd.dtype) == (X.shape, X.dtype, (2, 3), torch.float32)
    y, mean, rstd = torch.ops.normlab.layer_norm(X, W, W, 1e-5)
    assert (y.shape, mean.shape, rstd.shape) == (X.shape, (2, 3), (2, 3))
    assert nt.rms_norm(X, None, 1e-6).shape == X.shape
    assert nt.layer_norm(meta(5, 0), None, None, 1e-5).shape == (5, 0)
    # eps = 0, as PyTorch takes it (a constant row then has an infinite rstd, as in PyTorch).
    assert nt.rms_norm(X, W, 0.0).shape == nt.layer_norm(X, W, W, 0.0).shape == X.shape


def test_statistics_are_outputs_without_gradient():
    x = meta(4, 64, dtype=torch.float32).requires_grad_()
    y, rstd = torch.ops.normlab.rms_norm(x, None, None, 1e-6, False)
    assert y.requires_grad and not rstd.requires_grad
    y, mean, rstd = torch.ops.normlab.layer_norm(x, None, None, 1e-6)
    assert y.requires_grad and not mean.requires_grad and not rstd.requires_grad


def test_backward_outputs_shapes_and_dtypes():
    stat = meta(2, 3, dtype=torch.float32)
    dx, dweight, dbias = torch.ops.normlab.rms_norm_backward(X, X, W, None, stat, False)
    assert (dx.shape, dx.dtype, dweight.shape, dweight.dtype, dbias.numel()) == (
        X.shape, X.dtype, (64,), torch.float32, 0)
    dx, dweight, dbias = torch.ops.normlab.layer_norm_backward(X, X, None, None, stat, stat)
    assert (dx.shape, dweight.numel(), dbias.numel()) == (X.shape, 0, 0)


BAD_INPUTS = [
    (ValueError, "x is on cpu", lambda: nt.rms_norm(torch.ones(2, 64), None, 1e-6)),
    (TypeError, "x has dtype torch.float64", lambda: nt.rms_norm(X.double(), None, 1e-6)),
    (ValueError, "x is a scalar", lambda: nt.rms_norm(meta(), None, 1e-6)),
    (ValueError, r"weight has shape \(63,\)", lambda: nt.rms_norm(X, meta(63), 1e-6)),
    (ValueError, "weight has stride 2", lambda: nt.rms_norm(X, meta(128)[::2], 1e-6)),
    (TypeError, r"weight has dtype torch.float16; with torch.bfloat16 x it must be "
     r"torch.bfloat16 or torch.float32 \(any of the three with torch.float32 x\)",
     lambda: nt.rms_norm(X, meta(64, dtype=torch.float16), 1e-6)),
    (TypeError, "bias has dtype torch.float16; with torch.bfloat16 x",
     lambda: nt.rms_norm(X, None, 1e-6, bias=meta(64, dtype=torch.float16))),
    (TypeError, "weight has dtype torch.float64",
     lambda: nt.rms_norm(X.float(), meta(64, dtype=torch.float64), 1e-6)),
    (TypeError, "bias has dtype torch.float16 and weight torch.bfloat16",
     lambda: nt.rms_norm(X.float(), meta(64), 1e-6, bias=meta(64, dtype=torch.float16))),
    (TypeError, r"weight has dtype torch.bfloat16; with torch.float16 x it must be "
     r"torch.float16 or torch.float32",
     lambda: nt.layer_norm(X.half(), meta(64), None, 1e-5)),
    (TypeError, "bias has dtype torch.float64; with torch.float32 x",
     lambda: nt.rms_norm(X.float(), None, 1e-6, bias=meta(64, dtype=torch.float64))),
    (TypeError, "weight has dtype torch.float64; with torch.float32 x",
     lambda: nt.fused_add_rms_norm_(X.float(), X.float(), meta(64, dtype=torch.float64), 1e-6)),
    (ValueError, r"bias has shape \(63,\)", lambda: nt.rms_norm(X, W, 1e-6, bias=meta(63))),
    (ValueError, "bias has stride 2", lambda: nt.rms_norm(X, None, 1e-6, bias=meta(128)[::2])),
    (ValueError, "bias is on cpu and x on meta",
     lambda: nt.rms_norm(X, W, 1e-6, bias=torch.zeros(64))),
    (ValueError, r"gemma: scaling by \(1 \+ weight\) needs a weight",
     lambda: nt.rms_norm(X, None, 1e-6, gemma=True, bias=W)),
    (ValueError, r"x \(shape \(4, 64\), strides \(128, 2\)\) is not rows",
     lambda: nt.rms_norm(meta(4, 128)[:, ::2], None, 1e-6, bias=W)),
    (TypeError, "dy has dtype torch.float64",
     lambda: torch.ops.normlab.rms_norm_backward(X.double(), X, W, None, meta(2, 3), False)),
    (ValueError, r"dy has shape \(2, 3, 65\) and x \(2, 3, 64\)",
     lambda: torch.ops.normlab.layer_norm_backward(meta(2, 3, 65, dtype=torch.float32), X, W,
                                                   None, meta(2, 3), meta(2, 3))),
    (TypeError, "bias has dtype torch.bfloat16 and weight torch.float32",
     lambda: nt.layer_norm(X, W, meta(64), 1e-5)),
    (ValueError, "eps must be a finite number >= 0, got -1e-06",
     lambda: nt.rms_norm(X, None, -1e-6)),
    (ValueError, "eps must be a finite number >= 0, got inf",
     lambda: nt.layer_norm(X, None, None, float("inf"))),
    (ValueError, r"gemma: scaling by \(1 \+ weight\) needs a weight",
     lambda: nt.rms_norm(X, None, 1e-6, gemma=True)),
    (ValueError, r"x \(shape \(3, 2, 64\), strides \(0, 64, 1\)\) is not rows",
     lambda: nt.rms_norm(meta(2, 64).expand(3, 2, 64), None, 1e-6)),
    (ValueError, r"x \(shape \(4, 7, 64\), strides \(896, 128, 2\)\) is not rows",
     lambda: nt.layer_norm(meta(4, 7, 128)[:, :, ::2], None, None, 1e-6)),
    (ValueError, r"x \(shape \(99, 7, 64\), strides \(896, 64, 1\)\) is not rows",
     lambda: nt.fused_add_rms_norm(meta(99, 14, 64)[:, :7], meta(99, 7, 64), None, 1e-6)),
    (ValueError, r"x \(shape \(4, 64\), strides \(128, 2\)\) is not rows",
     lambda: nt.rms_norm(meta(4, 128)[:, ::2], None, 1e-6)),
    (ValueError, r"x \(shape \(5, 64\), strides \(0, 1\)\) is not rows",
     lambda: nt.rms_norm(meta(64).expand(5, 64), None, 1e-6)),
    (TypeError, "residual has dtype torch.float16 and x torch.bfloat16",
     lambda: nt.fused_add_rms_norm_(X, meta(2, 3, 64, dtype=torch.float16), None, 1e-6)),
    (TypeError, r"residual has dtype torch.float16 and x torch.float32; they must match \(or "
                r"residual be torch.float32, the residual stream in float32\)",
     lambda: nt.fused_add_layer_norm_(X.float(), X.half(), None, None, 1e-6)),
    (TypeError, "residual has dtype torch.bfloat16 and x torch.float16",
     lambda: nt.fused_add_rms_norm(X.half(), X, None, 1e-6)),
    (ValueError, r"residual has shape \(2, 3, 65\) and x \(2, 3, 64\)",
     lambda: nt.fused_add_layer_norm(X, meta(2, 3, 65, dtype=torch.float32), None, None, 1e-6)),
    (TypeError, "dresidual has dtype torch.bfloat16 and x torch.float32",
     lambda: torch.ops.normlab.fused_add_norm_backward(X, X, X.float(), None, None, None,
                                                       meta(2, 3, dtype=torch.float32), False)),
    (ValueError, r"residual has shape \(2, 3, 65\) and x \(2, 3, 64\)",
     lambda: nt.fused_add_layer_norm_(X, meta(2, 3, 65), None, None, 1e-6)),
    (ValueError, r"residual \(shape \(2, 3, 64\), strides \(1, 2, 6\)\) is not rows",
     lambda: nt.fused_add_rms_norm_(X, meta(64, 3, 2).permute(2, 1, 0), None, 1e-6)),
    (TypeError, "out has dtype torch.float32",
     lambda: nt.rms_norm(X, W, 1e-6, out=meta(2, 3, 64, dtype=torch.float32))),
    (ValueError, r"out \(shape \(2, 3, 64\), strides \(3, 1, 6\)\)",
     lambda: nt.layer_norm(X, W, W, 1e-6, out=meta(64, 2, 3).permute(1, 2, 0))),
    (RuntimeError, "fused_add_rms_norm_ is forward only and x, residual requires grad",
     lambda: nt.fused_add_rms_norm_(meta(2, 64).requires_grad_(),
                                    meta(2, 64).requires_grad_(), None, 1e-6)),
]


@pytest.mark.parametrize("error, message, call", BAD_INPUTS)
def test_bad_input_is_named(error, message, call):
    with pytest.raises(error, match=message):
        call()


def refusal(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001  (the refusal itself is what is compared)
        return type(error), str(error)
    raise AssertionError("the call was not refused")


@pytest.mark.parametrize("call", [case[2] for case in BAD_INPUTS])
def test_both_paths_refuse_with_the_same_words(call, monkeypatch):
    """The extension's checks are ops.py's: the same exception type and the whole message."""
    extension()
    theirs = refusal(call)
    monkeypatch.setattr(nt.ops, "_extension", None)
    assert theirs == refusal(call)


def test_layouts_that_are_rows_one_stride_apart():
    wide = meta(8, 200)
    assert nt.rms_norm(wide[:, 10:74], None, 1e-6).shape == (8, 64)  # a slice of wider rows
    assert nt.rms_norm(wide[:, 100:164].view(2, 4, 64), None, 1e-6).shape == (2, 4, 64)
    assert nt.rms_norm(meta(64)[None], None, 1e-6).shape == (1, 64)  # one row, any stride
    assert nt.rms_norm(meta(6, 1, 64)[:, :, :], None, 1e-6).shape == (6, 1, 64)


def test_head_views_are_rows_in_two_levels():
    """A head view (q = qkv[:, :heads, :] of a fused projection) is taken as two levels of
    rows, a transposed pair of dimensions too; y is contiguous. Three levels that cannot
    collapse are taken through a contiguous copy; a fused add's x must have one stride."""
    q = meta(99, 14, 64)[:, :7, :]
    assert q.stride() == (896, 64, 1)
    for y in (nt.rms_norm(q, None, 1e-6), nt.layer_norm(q, W.bfloat16(), None, 1e-5),
              torch.ops.normlab.rms_norm(q, None, None, 1e-6, False)[0]):
        assert y.shape == q.shape and y.is_contiguous()
    assert nt.rms_norm(X.transpose(0, 1), None, 1e-6).shape == (3, 2, 64)
    three = meta(5, 4, 6, 64)[:, :3, :2, :]
    assert nt.rms_norm(three, None, 1e-6).shape == (5, 3, 2, 64)
    dx, _, _ = torch.ops.normlab.rms_norm_backward(meta(99, 7, 64), q, None, None,
                                                    meta(99, 7, dtype=torch.float32), False)
    assert dx.shape == q.shape and dx.is_contiguous()


def test_x_rows_layouts():
    """What the calls pass as x's rows: (x_stride, x_group_rows, x_group_stride)."""
    rows = nt.ops._x_rows_or_none
    assert rows(meta(8192, 48, 128)[:, :32, :]) == (128, 32, 6144)
    assert rows(meta(4, 64)) == (64, 0, 0)
    assert rows(meta(4, 128)[:, :64]) == (128, 0, 0)
    assert rows(meta(6, 4, 128)[:, :, :64]) == (128, 0, 0)  # collapses into one stride
    assert rows(meta(2, 3, 64).transpose(0, 1)) == (192, 2, 64)
    assert rows(meta(3, 1, 5, 64)[:, :, :2]) == (64, 2, 320)  # a dimension of one: no level
    assert rows(meta(5, 4, 6, 64)[:, :3, :2, :]) is nt.ops._MORE_LEVELS
    assert rows(meta(4, 128)[:, ::2]) is None
    assert rows(meta(64).expand(5, 64)) is None


def test_calls_carry_two_level_rows(monkeypatch):
    """The ctypes call's x fields for a head view, one stride, and three levels (a copy)."""
    launched = []
    monkeypatch.setattr(nt.ops, "_launch", lambda call, x: launched.append(
        (call.x, call.x_stride, call.x_group_rows, call.x_group_stride, x.data_ptr())))
    qkv = torch.zeros(6, 12, 64, dtype=torch.bfloat16)
    q = qkv[:, :5, :]
    nt.ops._run(nt.capi.OP_RMSNORM, 1e-6, x=q, y=torch.empty(q.shape, dtype=q.dtype))
    assert launched[-1] == (q.data_ptr(), 64, 5, 768, q.data_ptr())
    dy = torch.zeros(q.shape, dtype=q.dtype)
    nt.ops._run(nt.capi.OP_RMSNORM_BACKWARD, 1e-5, dy=dy, x=q, dx=torch.empty_like(dy),
                saved_rstd=torch.zeros(6, 5))
    assert launched[-1][1:4] == (64, 5, 768)
    three = torch.zeros(5, 4, 6, 64)[:, :3, :2, :]
    nt.ops._run(nt.capi.OP_LAYERNORM, 1e-6, x=three, y=torch.empty(three.shape))
    x, stride, group_rows, _, passed = launched[-1]
    assert (stride, group_rows) == (64, 0) and x == passed != three.data_ptr()


def test_forward_only_forms_refuse_grad():
    x = meta(4, 64, dtype=torch.float32).requires_grad_()
    with pytest.raises(RuntimeError, match=r"fused_add_layer_norm_ is forward only and x "
                                           r"requires grad.*call fused_add_layer_norm\(x, "):
        nt.fused_add_layer_norm_(x, meta(4, 64, dtype=torch.float32), None, None, 1e-5)
    with pytest.raises(RuntimeError, match="weight requires grad"):
        nt.layer_norm(x.detach(), W.clone().requires_grad_(), None, 1e-5,
                      out=meta(4, 64, dtype=torch.float32))
    with torch.no_grad():
        nt.fused_add_rms_norm_(x, meta(4, 64, dtype=torch.float32), None, 1e-6)


def every_op(x, r, w, b):
    with torch.no_grad():
        xr, rr = x.detach().clone(), r.clone()
        nt.fused_add_rms_norm_(xr, rr, w.detach(), 1e-6)
        nt.fused_add_layer_norm_(xr, rr, w.detach(), b.detach(), 1e-6)
        out = nt.rms_norm(x.detach(), w.detach(), 1e-6, out=torch.empty_like(x))
    return nt.rms_norm(x, w, 1e-6, gemma=True) + nt.layer_norm(x, w, b, 1e-5) + xr + rr + out


def test_compile_traces_every_op_in_one_graph():
    import torch._dynamo

    x, r = meta(4, 64).requires_grad_(), meta(4, 64)
    w, b = meta(64).requires_grad_(), meta(64).requires_grad_()
    torch._dynamo.reset()
    explained = torch._dynamo.explain(every_op)(x, r, w, b)
    assert (explained.graph_break_count, explained.graph_count) == (0, 1), explained.break_reasons
    compiled = torch.compile(every_op, fullgraph=True, backend="aot_eager")
    compiled(x, r, w, b).sum().backward()  # forward and backward through the fake kernels
    assert (x.grad.shape, w.grad.shape, b.grad.shape) == (x.shape, w.shape, b.shape)


def test_compile_traces_head_views_in_one_graph():
    import torch._dynamo

    def qk_norm(qkv, w):
        return (nt.rms_norm(qkv[:, :4, :], w, 1e-6)
                + nt.layer_norm(qkv[:, 4:8, :], w, None, 1e-5))

    qkv, w = meta(16, 12, 64).requires_grad_(), meta(64).requires_grad_()
    torch._dynamo.reset()
    compiled = torch.compile(qk_norm, fullgraph=True, backend="aot_eager")
    compiled(qkv, w).sum().backward()
    assert (qkv.grad.shape, w.grad.shape) == (qkv.shape, w.shape)


def test_modules_take_torch_parameters():
    theirs = torch.nn.LayerNorm(64, eps=1e-3, bias=False, device="meta")
    ours = nt.LayerNorm.from_torch(theirs)
    assert (ours.eps, ours.bias, ours.weight.shape) == (1e-3, None, (64,))
    assert ours.weight is not theirs.weight
    assert ours(X).shape == X.shape
    model = torch.nn.Sequential(torch.nn.RMSNorm(64, device="meta"), torch.nn.Linear(64, 64),
                                torch.nn.Sequential(torch.nn.LayerNorm(64, device="meta")))
    assert nt.replace_norms(model) == 2
    assert isinstance(model[0], nt.RMSNorm) and isinstance(model[2][0], nt.LayerNorm)
    assert model[0].eps is None  # torch.nn.RMSNorm's default: finfo(x.dtype).eps at run time

def test_norms_over_several_trailing_dimensions():
    """A normalized_shape of several dimensions, as PyTorch's: modules, replace_norms and the
    functions (by keyword, or from a weight of that shape), outputs in x's shape; shapes that
    do not agree are refused by name."""
    x = torch.empty(3, 5, 4, 16, device="meta", dtype=torch.bfloat16)
    model = torch.nn.Sequential(torch.nn.LayerNorm((4, 16), device="meta"),
                                torch.nn.RMSNorm([4, 16], device="meta"))
    assert nt.replace_norms(model) == 2
    assert model[0].weight.shape == model[0].bias.shape == model[1].weight.shape == (4, 16)
    assert model[1](model[0](x)).shape == x.shape
    w = torch.empty(4, 16, device="meta", dtype=torch.bfloat16)
    assert nt.rms_norm(x, w, 1e-6).shape == x.shape
    assert nt.layer_norm(x, None, None, 1e-5, normalized_shape=(5, 4, 16)).shape == x.shape
    assert nt.layer_norm(x, w, w, 1e-5, out=torch.empty_like(x)).shape == x.shape
    with pytest.raises(ValueError, match=r"normalized_shape has shape \(4, 8\)"):
        nt.rms_norm(x, None, 1e-6, normalized_shape=(4, 8))
    with pytest.raises(ValueError, match=r"bias has shape \(64,\)"):
        nt.layer_norm(x, w, torch.empty(64, device="meta", dtype=torch.bfloat16), 1e-5)


def test_backend_says_which_path_serves(backend):
    assert nt.backend() == backend
    if backend == "extension":
        assert nt.extension_error() is None


def extension():
    if nt.ops._extension is None:
        pytest.skip(f"normlab_torch._C is not loaded: {nt.extension_error()}")
    return nt.ops._extension


class Subclass(torch.Tensor):
    pass


def test_extension_takes_plain_tensors_and_leaves_the_rest_to_python():
    """Meta tensors go through the extension's checks and allocation (no launch); a tensor
    subclass (a fake tensor's case) and parameters of several dimensions come back as None."""
    ext = extension()
    y = ext.rms_norm(X, W, None, 1e-6, False)
    assert (y.shape, y.dtype, y.device.type) == (X.shape, X.dtype, "meta")
    assert ext.rms_norm(X.float(), meta(64), meta(64), 1e-6, True).dtype == torch.float32
    assert ext.layer_norm(X, W, None, 1e-5).shape == X.shape
    x, r = meta(4, 64), meta(4, 64)
    assert all(a is b for a, b in zip(ext.fused_add_rms_norm_(x, r, None, 1e-6, False), (x, r)))
    assert ext.fused_add_layer_norm_(x, r, None, None, 1e-6)[1] is r
    assert ext.rms_norm(X.as_subclass(Subclass), W, None, 1e-6, False) is None
    assert ext.rms_norm(X, meta(3, 64), None, 1e-6, False) is None
    assert ext.rms_norm(X, None, meta(3, 64), 1e-6, False) is None
    assert ext.layer_norm(X, None, meta(3, 64), 1e-6) is None
    assert ext.fused_add_rms_norm_(x, r.as_subclass(Subclass), None, 1e-6, False) is None


def test_extension_autograd_stays_in_cpp():
    """A call autograd records gets the extension's C++ node; its backward (on meta tensors:
    shapes and dtypes) gives each input a gradient of its shape."""
    extension()
    x = meta(4, 64).requires_grad_()
    w, b = meta(64, dtype=torch.float32).requires_grad_(), meta(64).requires_grad_()
    for y, function in ((nt.rms_norm(x, w, 1e-6), "RMSNormFunction"),
                        (nt.layer_norm(x, w, None, 1e-5), "LayerNormFunction")):
        assert function in y.grad_fn.name(), y.grad_fn.name()
        y.sum().backward()
    assert (x.grad.shape, x.grad.dtype, w.grad.shape, w.grad.dtype) == (
        x.shape, x.dtype, w.shape, torch.float32)
    with torch.no_grad():
        assert nt.rms_norm(x, w, 1e-6).grad_fn is None
        assert nt.rms_norm(x, w, 1e-6, bias=w).grad_fn is None
    with pytest.raises(ValueError, match=r"bias has shape \(63,\)"):
        nt.layer_norm(x, w, meta(63), 1e-5)
    nt.layer_norm(x, None, b, 1e-5).sum().backward()
    assert b.grad.shape == b.shape


def test_extension_of_another_pytorch_is_refused(monkeypatch):
    """A module built against another PyTorch is not used: its C++ ABI would not match."""
    extension()
    monkeypatch.setattr(torch, "__version__", "2.0.0+other")
    module, why = nt.ops._load_extension()
    assert module is None and "this is 2.0.0+other: rebuild it" in why, why


def test_environment_variable_chooses_ctypes():
    extension()
    environment = dict(os.environ, NORMLAB_TORCH_BACKEND="ctypes",
                       PYTHONPATH=os.pathsep.join(filter(None, sys.path)))
    said = subprocess.run(
        [sys.executable, "-c", "import normlab_torch as nt; print(nt.backend(), nt.extension_error())"],
        env=environment, capture_output=True, text=True, check=True).stdout
    assert said.strip() == "ctypes NORMLAB_TORCH_BACKEND=ctypes", said
def test_mixed_dtypes_and_the_rms_norm_bias_on_meta():
    """float32 x with 16-bit parameters, a dy in another dtype than x (autocast), and RMSNorm
    with a bias: accepted, y and dx in x's dtype, each parameter's gradient in its dtype."""
    x = meta(2, 3, 64, dtype=torch.float32)
    for half in (torch.bfloat16, torch.float16):
        p = meta(64, dtype=half)
        assert nt.rms_norm(x, p, 1e-6, bias=p).dtype == x.dtype
        assert nt.layer_norm(x, p, p, 1e-5).dtype == x.dtype
        assert nt.RMSNorm(64, bias=True, device="meta", dtype=half)(x).dtype == x.dtype
        stat = meta(2, 3, dtype=torch.float32)
        for dy, on in ((meta(2, 3, 64, dtype=half), x), (x, X)):
            dx, dweight, dbias = torch.ops.normlab.rms_norm_backward(dy, on, p, p, stat, False)
            assert (dx.dtype, dweight.dtype, dbias.dtype, dbias.shape) == (on.dtype, half, half,
                                                                            (64,))
            dx, dweight, dbias = torch.ops.normlab.layer_norm_backward(dy, on, None, p, stat, stat)
            assert (dx.dtype, dweight.numel(), dbias.dtype) == (on.dtype, 0, half)
    y, rstd = torch.ops.normlab.rms_norm(X, W, W, 1e-6, False)
    assert (y.dtype, rstd.shape) == (X.dtype, (2, 3))
    model = nt.RMSNorm(64, bias=True, device="meta")
    assert model.bias.shape == (64,) and "bias=True" in repr(model)
    assert nt.RMSNorm(64, device="meta").bias is None


def mixed_ops(x, w16, b16, xb, w32):
    """fp32 x with bf16 parameters, RMSNorm with a bias, and a bf16 y cast to fp32 (its dy
    reaches the bf16 backward in fp32 only if normlab is given it so: autograd casts it)."""
    return (nt.rms_norm(x, w16, 1e-6, bias=b16) + nt.layer_norm(x, w16, b16, 1e-5)
            + nt.rms_norm(xb, w32, 1e-6, bias=w32).float())


def test_compile_traces_mixed_dtypes_and_the_bias_in_one_graph():
    import torch._dynamo

    x, xb = meta(4, 64, dtype=torch.float32).requires_grad_(), meta(4, 64).requires_grad_()
    w16, b16 = meta(64).requires_grad_(), meta(64).requires_grad_()
    w32 = meta(64, dtype=torch.float32).requires_grad_()
    torch._dynamo.reset()
    explained = torch._dynamo.explain(mixed_ops)(x, w16, b16, xb, w32)
    assert (explained.graph_break_count, explained.graph_count) == (0, 1), explained.break_reasons
    compiled = torch.compile(mixed_ops, fullgraph=True, backend="aot_eager")
    compiled(x, w16, b16, xb, w32).sum().backward()
    assert (w16.grad.dtype, b16.grad.dtype, w32.grad.dtype) == (torch.bfloat16, torch.bfloat16,
                                                                torch.float32)
    assert (x.grad.dtype, xb.grad.dtype) == (torch.float32, torch.bfloat16)


def test_mixed_dtypes_and_the_bias_through_each_paths_autograd(backend):
    """float32 x with 16-bit parameters, 16-bit x with float32 ones, and RMSNorm's bias, through
    the autograd of each path (the extension's C++ nodes, ops.py's otherwise): y and dx in x's
    dtype, dweight and dbias in the parameters' dtype, each present parameter a gradient and no
    other. dy is given in another dtype than y's; autograd casts it to y's before the node."""
    for x_dtype, p_dtype in ((torch.float32, torch.bfloat16), (torch.float32, torch.float16),
                             (torch.bfloat16, torch.float32), (torch.float16, torch.float16)):
        for norm, has_weight, has_bias in (
                (lambda x, w, b: nt.rms_norm(x, w, 1e-6, bias=b), True, True),
                (lambda x, w, b: nt.rms_norm(x, w, 1e-6, gemma=True, bias=b), True, True),
                (lambda x, w, b: nt.rms_norm(x, w, 1e-6, bias=b), False, True),
                (lambda x, w, b: nt.rms_norm(x, w, 1e-6), True, False),
                (lambda x, w, b: nt.layer_norm(x, w, b, 1e-5), True, True)):
            x = meta(2, 3, 64, dtype=x_dtype).requires_grad_()
            w = meta(64, dtype=p_dtype).requires_grad_() if has_weight else None
            b = meta(64, dtype=p_dtype).requires_grad_() if has_bias else None
            y = norm(x, w, b)
            assert (y.shape, y.dtype) == (x.shape, x_dtype)
            if backend == "extension":
                assert "Function" in y.grad_fn.name(), y.grad_fn.name()
            other = torch.float16 if x_dtype is not torch.float16 else torch.bfloat16
            y.backward(meta(2, 3, 64, dtype=other))
            assert (x.grad.shape, x.grad.dtype) == (x.shape, x_dtype)
            for parameter in (w, b):
                if parameter is not None:
                    assert (parameter.grad.shape, parameter.grad.dtype) == ((64,), p_dtype)


def test_both_paths_give_the_same_outputs_for_mixed_dtypes_and_the_bias(monkeypatch):
    """Accepted calls with mixed dtypes and RMSNorm's bias: the extension's outputs have the
    ctypes path's shape, dtype and device, without autograd and with it (gradients too)."""
    extension()

    def outputs():
        x = meta(2, 3, 64, dtype=torch.float32)
        r = meta(2, 3, 64, dtype=torch.float32)
        results = []
        for p_dtype in (torch.bfloat16, torch.float16, torch.float32):
            p = meta(64, dtype=p_dtype)
            with torch.no_grad():
                results += [nt.rms_norm(x, p, 1e-6, bias=p), nt.rms_norm(x, None, 1e-6, bias=p),
                            nt.layer_norm(x, p, p, 1e-5), *nt.fused_add_rms_norm_(x, r, p, 1e-6),
                            *nt.fused_add_layer_norm_(x, r, p, p, 1e-6)]
            leaves = [x.clone().requires_grad_(), p.clone().requires_grad_(),
                      p.clone().requires_grad_()]
            nt.rms_norm(*leaves[:2], 1e-6, bias=leaves[2]).sum().backward()
            results += [leaf.grad for leaf in leaves]
        return [(t.shape, t.dtype, t.device) for t in results]

    theirs = outputs()
    monkeypatch.setattr(nt.ops, "_extension", None)
    assert theirs == outputs()


# ---------------------------------------------------------------- the fused adds' residual stream


def test_a_float32_residual_stream_on_meta():
    """16-bit x with a float32 residual: the in-place adds take it (the residual stays float32),
    the autograd adds give y in x's dtype and residual_out in the residual's, and each input's
    gradient in its own dtype (weight and bias theirs). The residual in x's dtype as before."""
    for half in (torch.bfloat16, torch.float16):
        x, r = meta(2, 3, 64, dtype=half), meta(2, 3, 64, dtype=torch.float32)
        assert nt.fused_add_rms_norm_(x, r, W, 1e-6)[1] is r
        assert nt.fused_add_layer_norm_(x, r, None, W, 1e-6)[1] is r
        for stream in (torch.float32, half):
            x = meta(2, 3, 64, dtype=half).requires_grad_()
            r = meta(2, 3, 64, dtype=stream).requires_grad_()
            w, b = meta(64, dtype=half).requires_grad_(), meta(64, dtype=half).requires_grad_()
            for norm in (lambda: nt.fused_add_rms_norm(x, r, w, 1e-6),
                         lambda: nt.fused_add_rms_norm(x, r, w, 1e-6, gemma=True),
                         lambda: nt.fused_add_layer_norm(x, r, w, b, 1e-5)):
                y, h = norm()
                assert (y.dtype, h.dtype, y.shape, h.shape) == (half, stream, x.shape, x.shape)
                (y.sum() + h.sum()).backward()
                assert (x.grad.dtype, r.grad.dtype, w.grad.dtype) == (half, stream, half)
                for t in (x, r, w, b):
                    t.grad = None


def fused_adds(x, r, w, b):
    """The fused adds with autograd and, without grad, in place, on a float32 stream."""
    with torch.no_grad():
        xi, ri = x.detach().clone(), r.detach().clone()
        nt.fused_add_rms_norm_(xi, ri, w.detach(), 1e-6)
        nt.fused_add_layer_norm_(xi, ri, w.detach(), b.detach(), 1e-6)
    y, h = nt.fused_add_rms_norm(x, r, w, 1e-6)
    y2, h2 = nt.fused_add_layer_norm(y, h, w, b, 1e-5)
    return y2.float() + h2 + xi.float() + ri


def test_compile_traces_the_fused_adds_with_autograd_in_one_graph():
    import torch._dynamo

    x, r = meta(4, 64).requires_grad_(), meta(4, 64, dtype=torch.float32).requires_grad_()
    w, b = meta(64).requires_grad_(), meta(64).requires_grad_()
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fused_adds)(x, r, w, b)
    assert (explained.graph_break_count, explained.graph_count) == (0, 1), explained.break_reasons
    compiled = torch.compile(fused_adds, fullgraph=True, backend="aot_eager")
    compiled(x, r, w, b).sum().backward()
    assert (x.grad.dtype, r.grad.dtype, w.grad.dtype, b.grad.dtype) == (
        torch.bfloat16, torch.float32, torch.bfloat16, torch.bfloat16)
