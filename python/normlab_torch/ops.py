# SPDX-License-Identifier: Apache-2.0
"""normlab's norms as PyTorch custom ops (namespace "normlab"), run by normlab's dispatcher
through libnormlab_capi.so.

Every op has a fake implementation (the same checks and output allocation, no launch), so
torch.compile(fullgraph=True) traces it; rms_norm and layer_norm have autograd through chapter
08's backward kernels. The forward ops return the per-row statistics the backward needs as
extra outputs (rstd, and mean for LayerNorm); the functions of this module return y alone.

Checks happen before anything is launched and name the argument: dtypes (float32, float16,
bfloat16 activations; parameters in that dtype or float32), devices, shapes, eps, and layouts
(rows one stride apart with a unit inner stride). What the dispatcher then refuses is a
ValueError carrying its message.
"""
import math
from typing import Optional

import torch
from torch import Tensor

from . import capi

_library = capi.load()

_DTYPES = {torch.float32: capi.DTYPE_F32, torch.float16: capi.DTYPE_F16,
           torch.bfloat16: capi.DTYPE_BF16}
# NormCall fields that are rows x cols with a row stride (the others are vectors).
_ROW_FIELDS = ("x", "residual", "y", "residual_out", "dy", "dx")
# eps of the backward calls: the saved rstd already holds the forward's; NormCall's default.
_BACKWARD_EPS = 1e-5


def library_path():
    """The libnormlab_capi.so this package loaded."""
    return _library.path


# ---------------------------------------------------------------- checks (metadata only)


def _check_activation(name, tensor, x=None):
    """A float tensor of at least one dimension on a CUDA device (meta too: shapes only); with
    @p x given, on x's device with x's dtype and shape."""
    if tensor.dtype not in _DTYPES:
        raise TypeError(f"{name} has dtype {tensor.dtype}; normlab takes float32, float16 or "
                        "bfloat16")
    if tensor.device.type not in ("cuda", "meta"):
        raise ValueError(f"{name} is on {tensor.device}; normlab runs on CUDA tensors")
    if tensor.dim() == 0:
        raise ValueError(f"{name} is a scalar; the norm is over its last dimension")
    if x is None:
        return
    if tensor.device != x.device:
        raise ValueError(f"{name} is on {tensor.device} and x on {x.device}")
    if tensor.dtype != x.dtype:
        raise TypeError(f"{name} has dtype {tensor.dtype} and x {x.dtype}; they must match")
    if tensor.shape != x.shape:
        raise ValueError(f"{name} has shape {tuple(tensor.shape)} and x {tuple(x.shape)}; "
                         "they must match")


def _check_parameter(name, parameter, x):
    """None, or one contiguous value per column of x in x's dtype or float32, on x's device."""
    if parameter is None:
        return
    if parameter.device != x.device:
        raise ValueError(f"{name} is on {parameter.device} and x on {x.device}")
    if parameter.dtype not in (x.dtype, torch.float32):
        raise TypeError(f"{name} has dtype {parameter.dtype}; with {x.dtype} x it must be "
                        f"{x.dtype} or float32")
    cols = x.shape[-1]
    if tuple(parameter.shape) != (cols,):
        raise ValueError(f"{name} has shape {tuple(parameter.shape)}; x's last dimension needs "
                         f"({cols},)")
    if cols > 1 and parameter.stride(0) != 1:
        raise ValueError(f"{name} has stride {parameter.stride(0)}; it must be contiguous")


def _row_stride_or_none(tensor):
    """The stride between consecutive rows of @p tensor seen as (rows, last dimension): the
    leading dimensions must collapse into one stride, the last must have stride 1, and rows
    must not overlap. None when they cannot."""
    cols = tensor.shape[-1]
    if tensor.is_contiguous():  # the common case, without the walk over the dimensions below
        return cols
    if cols > 1 and tensor.stride(-1) != 1:
        return None
    leading = [(size, stride) for size, stride in zip(tensor.shape[:-1], tensor.stride()[:-1])
               if size != 1]
    row_stride = leading[-1][1] if leading else cols  # one row: any stride will do
    expected = row_stride
    for size, stride in reversed(leading):
        if stride != expected:
            return None
        expected = stride * size
    return row_stride if row_stride >= cols else None


def _row_stride(name, tensor):
    stride = _row_stride_or_none(tensor)
    if stride is None:
        raise ValueError(
            f"{name} (shape {tuple(tensor.shape)}, strides {tuple(tensor.stride())}) is not rows "
            "one stride apart with a unit inner stride; pass a contiguous copy "
            f"({name}.contiguous())")
    return stride


def _check_norm(x, weight, bias, eps, gemma=False, residual=None, out=None):
    """Every check of a forward call."""
    _check_activation("x", x)
    for name, tensor in (("residual", residual), ("out", out)):
        if tensor is not None:
            _check_activation(name, tensor, x)
    _check_parameter("weight", weight, x)
    _check_parameter("bias", bias, x)
    if weight is not None and bias is not None and bias.dtype != weight.dtype:
        raise TypeError(f"bias has dtype {bias.dtype} and weight {weight.dtype}; they must match")
    if gemma and weight is None:
        raise ValueError("gemma: scaling by (1 + weight) needs a weight")
    if not 0 < eps < math.inf:  # comparisons only: under torch.compile eps may be symbolic
        raise ValueError(f"eps must be a positive finite number, got {eps!r}")
    if x.numel():
        for name, tensor in (("x", x), ("residual", residual), ("out", out)):
            if tensor is not None:
                _row_stride(name, tensor)


def _parameter_dtype(x, *parameters):
    """NormCall::weight_dtype: the first parameter's (they share one), or x's when none."""
    return next((p.dtype for p in parameters if p is not None), x.dtype)


def _span(tensor):
    start = tensor.data_ptr()
    last = sum((size - 1) * stride for size, stride in zip(tensor.shape, tensor.stride()))
    return start, start + (last + 1) * tensor.element_size()


def _check_disjoint(name, tensor, other_name, other):
    """ValueError when two tensors of the same shape share memory and the call writes one of
    them; rows of one may sit in the gaps between the other's (two halves of a wider tensor)."""
    if tensor.untyped_storage().data_ptr() != other.untyped_storage().data_ptr():
        return
    (start, end), (other_start, other_end) = _span(tensor), _span(other)
    if end <= other_start or other_end <= start:
        return
    stride = _row_stride(name, tensor)
    if stride == _row_stride(other_name, other):
        row_bytes, used = stride * tensor.element_size(), tensor.shape[-1] * tensor.element_size()
        offset = (other_start - start) % row_bytes
        if used <= offset <= row_bytes - used:
            return
    raise ValueError(f"{name} and {other_name} overlap in memory: normlab would write one while "
                     "it reads the other")


def _eager_inference(x, *parameters):
    """Whether a call may run the op's body directly instead of through PyTorch's dispatch: in
    eager mode (not while torch.compile traces), on plain CUDA tensors (not a tensor subclass
    such as a fake or meta tensor, which dispatch sends to the fake implementation), and where
    autograd records nothing. The body does the same checks and the same launch; PyTorch's
    dispatch of a Python custom op costs some 40 us of CPU a call (book page "normlab from
    PyTorch")."""
    if torch.compiler.is_compiling() or type(x) is not Tensor or not x.is_cuda:
        return False
    if not torch.is_grad_enabled():
        return True
    return not x.requires_grad and not any(p is not None and p.requires_grad for p in parameters)


def _refuse_grad(what, instead, **tensors):
    """The in-place and out= forms have no autograd: refuse them where a gradient is wanted,
    saying what to call @p instead."""
    if not torch.is_grad_enabled():
        return
    wanting = [name for name, tensor in tensors.items()
               if tensor is not None and tensor.requires_grad]
    if wanting:
        raise RuntimeError(
            f"normlab_torch.{what} is forward only and {', '.join(wanting)} requires grad: call "
            f"it under torch.no_grad() or torch.inference_mode(), or for training call {instead}, "
            "which has autograd")


# ---------------------------------------------------------------- launching


def _rows_of(tensor):
    """@p tensor itself when its rows have one stride, else a contiguous copy (an incoming
    gradient may be anything, e.g. expanded)."""
    return tensor if _row_stride_or_none(tensor) is not None else tensor.contiguous()


def _scratch(device):
    """Scratch from PyTorch's caching allocator, whose reuse is ordered on the stream."""
    return lambda size: torch.empty(size, dtype=torch.uint8, device=device)


def _run(op, eps, gemma=False, **tensors):
    """Fills a normlab_call with the named NormCall fields (None for absent), its shape from x,
    and launches it on the current stream of x's device. x must not be empty."""
    x = tensors["x"]
    cols = x.shape[-1]
    parameter_dtype = _parameter_dtype(
        x, *(tensors.get(name) for name in ("weight", "bias", "dweight", "dbias")))
    call = capi.NormlabCall(op=op, dtype=_DTYPES[x.dtype], weight_dtype=_DTYPES[parameter_dtype],
                            weight_plus_one=int(gemma), rows=x.numel() // cols, cols=cols, eps=eps)
    for field, tensor in tensors.items():
        if tensor is None:
            continue
        setattr(call, field, tensor.data_ptr())
        if field in _ROW_FIELDS:
            setattr(call, field + "_stride", _row_stride(field, tensor))
    if x.device.index == torch.cuda.current_device():
        _library.run(call, torch.cuda.current_stream().cuda_stream, _scratch(x.device))
        return
    with torch.cuda.device(x.device):  # plan() asks the current device; the stream is its
        _library.run(call, torch.cuda.current_stream().cuda_stream, _scratch(x.device))


def _like_rows(x):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def _per_row(x):
    return torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)


def _parameter_gradient(parameter, dtype, x):
    """An output for the gradient of @p parameter, or an empty tensor standing for "no
    parameter" (custom ops cannot return None). Left unset: the kernels write every element
    when x has rows, and _zero_without_rows fills it when x has none (zeroing it here cost a
    fill kernel on every backward call)."""
    size = x.shape[-1] if parameter is not None else 0
    return torch.empty(size, dtype=dtype, device=x.device)


def _zero_without_rows(*gradients):
    """Rows = 0 launches nothing and adds nothing: the parameters' gradients are zeros."""
    for gradient in gradients:
        gradient.zero_()


# ---------------------------------------------------------------- RMSNorm


def _rms_norm_outputs(x: Tensor, weight: Optional[Tensor], eps: float, gemma: bool):
    _check_norm(x, weight, None, eps, gemma)
    return _like_rows(x), _per_row(x)


def _rms_norm_body(x, weight, eps, gemma):
    """y = x / sqrt(mean(x^2) + eps) * w (* (1 + w) with gemma), and rstd per row."""
    y, rstd = _rms_norm_outputs(x, weight, eps, gemma)
    if x.numel():
        _run(capi.OP_RMSNORM, eps, gemma, x=x, y=y, weight=weight, rstd=rstd)
    return y, rstd


@torch.library.custom_op("normlab::rms_norm", mutates_args=())
def _rms_norm(x: Tensor, weight: Optional[Tensor], eps: float,
              gemma: bool) -> tuple[Tensor, Tensor]:
    """The op: _rms_norm_body, through PyTorch's dispatch."""
    return _rms_norm_body(x, weight, eps, gemma)


_rms_norm.register_fake(_rms_norm_outputs)


def _rms_norm_backward_outputs(dy: Tensor, x: Tensor, weight: Optional[Tensor], rstd: Tensor,
                               gemma: bool):
    _check_activation("dy", dy, x)
    return _like_rows(x), _parameter_gradient(weight, _parameter_dtype(x, weight), x)


@torch.library.custom_op("normlab::rms_norm_backward", mutates_args=())
def _rms_norm_backward(dy: Tensor, x: Tensor, weight: Optional[Tensor], rstd: Tensor,
                       gemma: bool) -> tuple[Tensor, Tensor]:
    """dx and dweight (empty without a weight) from dy, x, weight and the forward's rstd."""
    dx, dweight = _rms_norm_backward_outputs(dy, x, weight, rstd, gemma)
    if x.numel():
        _run(capi.OP_RMSNORM_BACKWARD, _BACKWARD_EPS, gemma, dy=dy, x=x, dx=dx, weight=weight,
             dweight=dweight if weight is not None else None, saved_rstd=rstd)
    else:
        _zero_without_rows(dweight)
    return dx, dweight


_rms_norm_backward.register_fake(_rms_norm_backward_outputs)


def _rms_norm_setup(ctx, inputs, output):
    x, weight, _, gemma = inputs
    rstd = output[1]
    ctx.mark_non_differentiable(rstd)
    ctx.save_for_backward(x, weight, rstd)
    ctx.gemma = gemma


def _rms_norm_gradients(ctx, dy, _):
    x, weight, rstd = ctx.saved_tensors
    dx, dweight = torch.ops.normlab.rms_norm_backward(_rows_of(dy), x, weight, rstd, ctx.gemma)
    return dx, dweight if weight is not None else None, None, None


_rms_norm.register_autograd(_rms_norm_gradients, setup_context=_rms_norm_setup)


def _rms_norm_out_checks(x: Tensor, weight: Optional[Tensor], eps: float, gemma: bool,
                         out: Tensor):
    _check_norm(x, weight, None, eps, gemma, out=out)


@torch.library.custom_op("normlab::rms_norm_out", mutates_args=("out",))
def _rms_norm_out(x: Tensor, weight: Optional[Tensor], eps: float, gemma: bool,
                  out: Tensor) -> None:
    """rms_norm written into a preallocated out (rows one stride apart); no autograd."""
    _rms_norm_out_checks(x, weight, eps, gemma, out)
    if x.numel():
        _check_disjoint("out", out, "x", x)
        _run(capi.OP_RMSNORM, eps, gemma, x=x, y=out, weight=weight)


_rms_norm_out.register_fake(_rms_norm_out_checks)


def rms_norm(x, weight, eps, gemma=False, *, out=None):
    """RMSNorm over the last dimension of @p x: x / sqrt(mean(x^2) + eps) * weight, or
    * (1 + weight) with gemma (Gemma's convention). weight may be None; it is in x's dtype or
    float32. y has x's dtype (F.rms_norm would promote to float32 with a float32 weight).
    With out (x's shape and dtype, rows one stride apart) y is written there and out returned;
    that form has no autograd."""
    if out is None:
        if _eager_inference(x, weight):
            return _rms_norm_body(x, weight, eps, gemma)[0]
        return torch.ops.normlab.rms_norm(x, weight, eps, gemma)[0]
    _refuse_grad("rms_norm(out=...)", "rms_norm without out=", x=x, weight=weight)
    torch.ops.normlab.rms_norm_out(x, weight, eps, gemma, out)
    return out


# ---------------------------------------------------------------- LayerNorm


def _layer_norm_outputs(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float):
    _check_norm(x, weight, bias, eps)
    return _like_rows(x), _per_row(x), _per_row(x)


def _layer_norm_body(x, weight, bias, eps):
    """y = (x - mean) / sqrt(var + eps) * w + b, and mean and rstd per row."""
    y, mean, rstd = _layer_norm_outputs(x, weight, bias, eps)
    if x.numel():
        _run(capi.OP_LAYERNORM, eps, x=x, y=y, weight=weight, bias=bias, mean=mean, rstd=rstd)
    return y, mean, rstd


@torch.library.custom_op("normlab::layer_norm", mutates_args=())
def _layer_norm(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """The op: _layer_norm_body, through PyTorch's dispatch."""
    return _layer_norm_body(x, weight, bias, eps)


_layer_norm.register_fake(_layer_norm_outputs)


def _layer_norm_backward_outputs(dy: Tensor, x: Tensor, weight: Optional[Tensor],
                                 bias: Optional[Tensor], mean: Tensor, rstd: Tensor):
    _check_activation("dy", dy, x)
    parameter_dtype = _parameter_dtype(x, weight, bias)
    return (_like_rows(x), _parameter_gradient(weight, parameter_dtype, x),
            _parameter_gradient(bias, parameter_dtype, x))


@torch.library.custom_op("normlab::layer_norm_backward", mutates_args=())
def _layer_norm_backward(dy: Tensor, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                         mean: Tensor, rstd: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """dx, dweight and dbias (each empty without its parameter) from dy, x, weight and the
    forward's mean and rstd; bias is not read, only whether there is one."""
    dx, dweight, dbias = _layer_norm_backward_outputs(dy, x, weight, bias, mean, rstd)
    if x.numel():
        _run(capi.OP_LAYERNORM_BACKWARD, _BACKWARD_EPS, dy=dy, x=x, dx=dx, weight=weight,
             dweight=dweight if weight is not None else None,
             dbias=dbias if bias is not None else None, saved_mean=mean, saved_rstd=rstd)
    else:
        _zero_without_rows(dweight, dbias)
    return dx, dweight, dbias


_layer_norm_backward.register_fake(_layer_norm_backward_outputs)


def _layer_norm_setup(ctx, inputs, output):
    x, weight, bias, _ = inputs
    _, mean, rstd = output
    ctx.mark_non_differentiable(mean, rstd)
    ctx.save_for_backward(x, weight, bias, mean, rstd)


def _layer_norm_gradients(ctx, dy, _mean, _rstd):
    x, weight, bias, mean, rstd = ctx.saved_tensors
    dx, dweight, dbias = torch.ops.normlab.layer_norm_backward(_rows_of(dy), x, weight, bias,
                                                               mean, rstd)
    return (dx, dweight if weight is not None else None, dbias if bias is not None else None,
            None)


_layer_norm.register_autograd(_layer_norm_gradients, setup_context=_layer_norm_setup)


def _layer_norm_out_checks(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                           eps: float, out: Tensor):
    _check_norm(x, weight, bias, eps, out=out)


@torch.library.custom_op("normlab::layer_norm_out", mutates_args=("out",))
def _layer_norm_out(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
                    out: Tensor) -> None:
    """layer_norm written into a preallocated out (rows one stride apart); no autograd."""
    _layer_norm_out_checks(x, weight, bias, eps, out)
    if x.numel():
        _check_disjoint("out", out, "x", x)
        _run(capi.OP_LAYERNORM, eps, x=x, y=out, weight=weight, bias=bias)


_layer_norm_out.register_fake(_layer_norm_out_checks)


def layer_norm(x, weight, bias, eps, *, out=None):
    """LayerNorm over the last dimension of @p x: (x - mean) / sqrt(var + eps) * weight + bias.
    weight and bias may be None; they share one dtype, x's or float32. y has x's dtype. With
    out, as rms_norm."""
    if out is None:
        if _eager_inference(x, weight, bias):
            return _layer_norm_body(x, weight, bias, eps)[0]
        return torch.ops.normlab.layer_norm(x, weight, bias, eps)[0]
    _refuse_grad("layer_norm(out=...)", "layer_norm without out=", x=x, weight=weight, bias=bias)
    torch.ops.normlab.layer_norm_out(x, weight, bias, eps, out)
    return out


# ---------------------------------------------------------------- residual add + norm, in place


def _fused_add_rms_norm_checks(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                               eps: float, gemma: bool):
    _check_norm(x, weight, None, eps, gemma, residual=residual)


@torch.library.custom_op("normlab::fused_add_rms_norm_", mutates_args=("x", "residual"))
def _fused_add_rms_norm_(x: Tensor, residual: Tensor, weight: Optional[Tensor], eps: float,
                         gemma: bool) -> None:
    """residual <- x + residual (rounded to the dtype); x <- rms_norm(residual)."""
    _fused_add_rms_norm_checks(x, residual, weight, eps, gemma)
    if x.numel():
        _check_disjoint("x", x, "residual", residual)
        _run(capi.OP_ADD_RMSNORM, eps, gemma, x=x, residual=residual, y=x, residual_out=residual,
             weight=weight)


_fused_add_rms_norm_.register_fake(_fused_add_rms_norm_checks)


def fused_add_rms_norm_(x, residual, weight, eps, gemma=False):
    """In place, as vLLM and FlashInfer: residual <- x + residual, then x <- RMSNorm of it.
    Returns (x, residual). Forward only: for training, rms_norm(x + residual, ...)."""
    _refuse_grad("fused_add_rms_norm_", "rms_norm(x + residual, weight, eps)", x=x,
                 residual=residual, weight=weight)
    torch.ops.normlab.fused_add_rms_norm_(x, residual, weight, eps, gemma)
    return x, residual


def _fused_add_layer_norm_checks(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                                 bias: Optional[Tensor], eps: float):
    _check_norm(x, weight, bias, eps, residual=residual)


@torch.library.custom_op("normlab::fused_add_layer_norm_", mutates_args=("x", "residual"))
def _fused_add_layer_norm_(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                           bias: Optional[Tensor], eps: float) -> None:
    """residual <- x + residual (rounded to the dtype); x <- layer_norm(residual)."""
    _fused_add_layer_norm_checks(x, residual, weight, bias, eps)
    if x.numel():
        _check_disjoint("x", x, "residual", residual)
        _run(capi.OP_ADD_LAYERNORM, eps, x=x, residual=residual, y=x, residual_out=residual,
             weight=weight, bias=bias)


_fused_add_layer_norm_.register_fake(_fused_add_layer_norm_checks)


def fused_add_layer_norm_(x, residual, weight, bias, eps):
    """In place: residual <- x + residual, then x <- LayerNorm of it. Returns (x, residual).
    Forward only: for training, layer_norm(x + residual, ...)."""
    _refuse_grad("fused_add_layer_norm_", "layer_norm(x + residual, weight, bias, eps)",
                 x=x, residual=residual, weight=weight, bias=bias)
    torch.ops.normlab.fused_add_layer_norm_(x, residual, weight, bias, eps)
    return x, residual
