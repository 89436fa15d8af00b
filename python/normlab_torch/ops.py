# SPDX-License-Identifier: Apache-2.0
"""normlab's norms as PyTorch custom ops (namespace "normlab"), run by normlab's dispatcher
through libnormlab_capi.so.

Every op has a fake implementation (the same checks and output allocation, no launch), so
torch.compile(fullgraph=True) traces it; rms_norm and layer_norm have autograd through chapter
08's backward kernels. The forward ops return the per-row statistics the backward needs as
extra outputs (rstd, and mean for LayerNorm); the functions of this module return y alone.

Checks happen before anything is launched and name the argument: dtypes (float32, float16,
bfloat16 activations; parameters in that dtype or float32, or any of them with float32
activations; an incoming gradient dy in any of them), devices, shapes, eps, and layouts
(rows one stride apart with a unit inner stride; the x of rms_norm and layer_norm also rows in
two levels, a head view, and more levels through a contiguous copy). What the dispatcher then
refuses is a ValueError carrying its message.

An eager call (not while torch.compile traces) goes first to normlab_torch._C, the same calls
compiled against PyTorch (csrc/extension.cpp), where it was built and imports: it makes the
same checks with the same messages and launches through the same C ABI, and takes rms_norm's
and layer_norm's autograd into C++. Where it is absent, or declines a call (a tensor subclass,
parameters of several dimensions), the Python paths below serve, through ctypes.
"""
import importlib.machinery
import importlib.util
import math
import os
import sys
from pathlib import Path
from typing import Optional

import torch
from torch import Tensor

from . import capi

_library = capi.load()

_DTYPES = {torch.float32: capi.DTYPE_F32, torch.float16: capi.DTYPE_F16,
           torch.bfloat16: capi.DTYPE_BF16}
# NormCall fields that are rows x cols with a row stride (the others are vectors).
_ROW_FIELDS = ("x", "residual", "y", "residual_out", "dy", "dresidual", "dx")
# eps of the backward calls: the saved rstd already holds the forward's; NormCall's default.
_BACKWARD_EPS = 1e-5


def library_path():
    """The libnormlab_capi.so this package loaded."""
    return _library.path


def _load_extension():
    """normlab_torch._C from beside the loaded library (inside this package where pip installed
    both, or a build tree's python/): (module, None), or (None, why not) where ctypes serves.
    NORMLAB_TORCH_BACKEND=ctypes leaves it out."""
    if os.environ.get("NORMLAB_TORCH_BACKEND") == "ctypes":
        return None, "NORMLAB_TORCH_BACKEND=ctypes"
    path = Path(_library.path).parent / ("_C" + importlib.machinery.EXTENSION_SUFFIXES[0])
    if not path.is_file():
        return None, (f"no {path} (built where no PyTorch was importable: pip install "
                      "--no-build-isolation builds it against the environment's)")
    spec = importlib.util.spec_from_file_location(f"{__package__}._C", path)
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError as error:
        return None, f"{path} does not import: {error}"
    running = torch.__version__.split("+")[0]
    if module.torch_version != running:  # PyTorch's C++ ABI is not kept across versions
        return None, (f"{path} was built against PyTorch {module.torch_version}, this is "
                      f"{torch.__version__}: rebuild it")
    sys.modules[spec.name] = module
    return module, None


_extension, _extension_error = _load_extension()
# Dynamo folds this call to True while it traces, which keeps the extension out of the graph.
_compiling = torch.compiler.is_compiling


def backend():
    """The path eager calls take: "extension" (normlab_torch._C) or "ctypes"."""
    return "extension" if _extension is not None else "ctypes"


def extension_error():
    """Why normlab_torch._C is not used; None where it is."""
    return _extension_error


# ---------------------------------------------------------------- checks (metadata only)


def _check_activation(name, tensor, x=None, any_dtype=False, stream=False):
    """A float tensor of at least one dimension on a CUDA device (meta too: shapes only); with
    @p x given, on x's device with x's shape, and x's dtype unless @p any_dtype (dy: read
    exactly in whichever dtype it comes, as under autocast) or, for @p stream (a fused add's
    residual), float32 with 16-bit x (the residual stream kept in float32)."""
    if tensor.dtype not in _DTYPES:
        raise TypeError(f"{name} has dtype {tensor.dtype}; normlab takes float32, float16 or "
                        "bfloat16")
    if tensor.device.type not in ("cuda", "meta"):
        seen = "" if torch.cuda.is_available() else ", and PyTorch sees no CUDA GPU here"
        raise ValueError(f"{name} is on {tensor.device}; normlab runs on CUDA tensors{seen}")
    if tensor.dim() == 0:
        raise ValueError(f"{name} is a scalar; the norm is over its last dimension")
    if x is None:
        return
    if tensor.device != x.device:
        raise ValueError(f"{name} is on {tensor.device} and x on {x.device}")
    fp32_stream = stream and tensor.dtype is torch.float32
    if tensor.dtype != x.dtype and not any_dtype and not fp32_stream:
        also = f" (or {name} be torch.float32, the residual stream in float32)" if stream else ""
        raise TypeError(f"{name} has dtype {tensor.dtype} and x {x.dtype}; they must match{also}")
    if tensor.shape != x.shape:
        raise ValueError(f"{name} has shape {tuple(tensor.shape)} and x {tuple(x.shape)}; "
                         "they must match")


def _parameter_dtype_ok(dtype, x_dtype):
    """Parameters as wide as x or wider: x's dtype or float32, or any of normlab's with float32
    x (read exactly as float32)."""
    return dtype in (x_dtype, torch.float32) or (x_dtype is torch.float32 and dtype in _DTYPES)


def _check_parameter(name, parameter, x):
    """None, or one contiguous value per column of x in a dtype _parameter_dtype_ok takes, on
    x's device."""
    if parameter is None:
        return
    if parameter.device != x.device:
        raise ValueError(f"{name} is on {parameter.device} and x on {x.device}")
    if not _parameter_dtype_ok(parameter.dtype, x.dtype):
        raise TypeError(f"{name} has dtype {parameter.dtype}; with {x.dtype} x it must be "
                        f"{x.dtype} or torch.float32 (any of the three with torch.float32 x)")
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


def _not_rows(name, tensor):
    return ValueError(
        f"{name} (shape {tuple(tensor.shape)}, strides {tuple(tensor.stride())}) is not rows "
        "one stride apart with a unit inner stride; pass a contiguous copy "
        f"({name}.contiguous())")


def _row_stride(name, tensor):
    stride = _row_stride_or_none(tensor)
    if stride is None:
        raise _not_rows(name, tensor)
    return stride


# _x_rows_or_none's answer for x whose rows have more than two levels.
_MORE_LEVELS = "more levels"


def _x_rows_or_none(tensor):
    """x's rows as a norm and its backward take them (not a fused add's): (x_stride,
    x_group_rows, x_group_stride) of NormlabCall, for rows one stride apart (x_group_rows 0) or
    in two levels, as a head view ([tokens, heads, head_dim] sliced from a fused projection:
    heads rows x_stride apart in a token, the tokens x_group_stride apart). The leading
    dimensions are collapsed where they can be; _MORE_LEVELS where more than two remain, None
    where the last dimension's stride is not 1 or a level's stride is below the row."""
    cols = tensor.shape[-1]
    if tensor.is_contiguous():
        return cols, 0, 0
    if cols > 1 and tensor.stride(-1) != 1:
        return None
    levels = []  # [size, stride], the innermost first
    for size, stride in zip(reversed(tensor.shape[:-1]), reversed(tensor.stride()[:-1])):
        if size == 1:
            continue
        if levels and stride == levels[-1][0] * levels[-1][1]:
            levels[-1][0] *= size
        else:
            levels.append([size, stride])
    if len(levels) > 2:
        return _MORE_LEVELS
    if any(stride < cols for _, stride in levels):
        return None
    if len(levels) < 2:
        return (levels[0][1] if levels else cols), 0, 0
    return levels[0][1], levels[0][0], levels[1][1]


def _x_rows(x):
    """x of a norm or its backward as _run passes it, and its _x_rows_or_none: x itself, or a
    contiguous copy where its rows have more than two levels."""
    layout = _x_rows_or_none(x)
    if layout is None:
        raise _not_rows("x", x)
    if layout is _MORE_LEVELS:
        return x.contiguous(), (x.shape[-1], 0, 0)
    return x, layout


def _check_norm(x, weight, bias, eps, gemma=False, residual=None, out=None):
    """Every check of a forward call."""
    _check_activation("x", x)
    if residual is not None:
        _check_activation("residual", residual, x, stream=True)
    if out is not None:
        _check_activation("out", out, x)
    _check_parameter("weight", weight, x)
    _check_parameter("bias", bias, x)
    if weight is not None and bias is not None and bias.dtype != weight.dtype:
        raise TypeError(f"bias has dtype {bias.dtype} and weight {weight.dtype}; they must match")
    if gemma and weight is None:
        raise ValueError("gemma: scaling by (1 + weight) needs a weight")
    if not 0 <= eps < math.inf:  # comparisons only: under torch.compile eps may be symbolic
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    if x.numel():
        if residual is None:  # a norm's x: one stride, two levels, or more (copied: _x_rows)
            if _x_rows_or_none(x) is None:
                raise _not_rows("x", x)
        else:
            _row_stride("x", x)
            _row_stride("residual", residual)
        if out is not None:
            _row_stride("out", out)


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
    stride = _row_stride(name, tensor)  # other may be a norm's x in two levels: not told apart
    if stride == _row_stride_or_none(other) and tensor.element_size() == other.element_size():
        row_bytes, used = stride * tensor.element_size(), tensor.shape[-1] * tensor.element_size()
        offset = (other_start - start) % row_bytes
        if used <= offset <= row_bytes - used:
            return
    raise ValueError(f"{name} and {other_name} overlap in memory: normlab would write one while "
                     "it reads the other")


def _eager(x):
    """Whether a call may run the op's body directly instead of through PyTorch's dispatch of
    the custom op: in eager mode (not while torch.compile traces), on a plain CUDA tensor (not a
    tensor subclass such as a fake or meta tensor, which dispatch sends to the fake
    implementation). The body does the same checks and the same launch; PyTorch's dispatch of a
    Python custom op costs several times what the body does on the CPU."""
    return type(x) is Tensor and x.is_cuda and not torch.compiler.is_compiling()


def _records_grad(*tensors):
    """Whether autograd records a call on @p tensors (None for absent)."""
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


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


# A device's current stream as a cudaStream_t. PyTorch's private accessor (which its generated
# kernels use) skips making a torch.cuda.Stream object on every call; the public path stands in
# where a PyTorch lacks it.
_current_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
    lambda index: torch.cuda.current_stream(index).cuda_stream)


def _run(op, eps, gemma=False, **tensors):
    """Fills a normlab_call with the named NormCall fields (None for absent), its shape from x,
    and launches it on the current stream of x's device. x must not be empty. A norm's x (and
    its backward's) may have two levels of rows (_x_rows); a fused add's has one stride."""
    x = tensors["x"]
    fused = op in (capi.OP_ADD_RMSNORM, capi.OP_ADD_LAYERNORM)
    if not fused:
        x, (x_stride, group_rows, group_stride) = _x_rows(x)
        tensors = dict(tensors, x=x)
    cols = x.shape[-1]
    parameter_dtype = _parameter_dtype(
        x, *(tensors.get(name) for name in ("weight", "bias", "dweight", "dbias")))
    call = capi.NormlabCall(op, _DTYPES[x.dtype], _DTYPES[parameter_dtype], gemma,
                            x.numel() // cols, cols, eps)
    dy = tensors.get("dy")
    if dy is not None and dy.dtype != x.dtype:
        call.dy_dtype_given, call.dy_dtype = 1, _DTYPES[dy.dtype]
    residual = tensors.get("residual")
    if residual is not None and residual.dtype != x.dtype:
        call.residual_dtype_given, call.residual_dtype = 1, _DTYPES[residual.dtype]
    for field, tensor in tensors.items():
        if tensor is None:
            continue
        setattr(call, field, tensor.data_ptr())
        if field in _ROW_FIELDS and (field != "x" or fused):
            setattr(call, field + "_stride", _row_stride(field, tensor))
    if not fused:
        call.x_stride, call.x_group_rows, call.x_group_stride = x_stride, group_rows, group_stride
    _launch(call, x)


# The current device's index, without torch.cuda's checks around it where PyTorch has the call.
_current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


def _launch(call, x):
    """Launches a filled normlab_call on the current stream of x's device, with scratch (when
    the plan needs it) from PyTorch's caching allocator, whose reuse is ordered on the stream."""
    index = x.get_device()
    scratch = lambda size: x.new_empty(size, dtype=torch.uint8)  # noqa: E731
    if index == _current_device():
        _library.run(call, _current_stream(index), scratch)
        return
    with torch.cuda.device(index):  # plan() asks the current device; the stream is its
        _library.run(call, _current_stream(index), scratch)


def _like_rows(x):
    """A new tensor of x's shape and dtype, its rows contiguous."""
    if x.is_contiguous():  # the cheaper call, which keeps that layout
        return torch.empty_like(x)
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def _per_row(x):
    return x.new_empty(x.shape[:-1], dtype=torch.float32)


def _parameter_gradient(parameter, dtype, x):
    """An output for the gradient of @p parameter, or an empty tensor standing for "no
    parameter" (custom ops cannot return None). Left unset: the kernels write every element
    when x has rows, and _zero_without_rows fills it when x has none (zeroing it here cost a
    fill kernel on every backward call)."""
    return x.new_empty(x.shape[-1] if parameter is not None else 0, dtype=dtype)


def _zero_without_rows(*gradients):
    """Rows = 0 launches nothing and adds nothing: the parameters' gradients are zeros."""
    for gradient in gradients:
        gradient.zero_()


def _backward_outputs(dy, x, weight, bias):
    """dx (x's dtype and shape) and the parameters' gradients (theirs, empty for absent ones)
    of a backward call whose dy, in any of normlab's dtypes, is checked against x."""
    _check_activation("dy", dy, x, any_dtype=True)
    parameter_dtype = _parameter_dtype(x, weight, bias)
    return (_like_rows(x), _parameter_gradient(weight, parameter_dtype, x),
            _parameter_gradient(bias, parameter_dtype, x))


# ---------------------------------------------------------------- the common eager call


def _plain(x, *parameters):
    """Whether an eager call on CUDA tensors is the common case that every check of
    _check_norm passes, judged with the fewest queries of the tensors (each costs the CPU on
    every call of every layer): x non-empty and contiguous in one of normlab's dtypes, each
    parameter absent or a contiguous vector of x's last dimension on x's device, in x's dtype
    or float32 (any with float32 x), one dtype for all. A call that is not takes the checked
    path, which names what is wrong or runs the rarer layout."""
    if x.dtype not in _DTYPES or not x.is_contiguous() or x.dim() == 0 or not x.numel():
        return False
    dtype = None
    for parameter in parameters:
        if parameter is None:
            continue
        if dtype is None:
            dtype = parameter.dtype
            if not _parameter_dtype_ok(dtype, x.dtype):
                return False
        if (parameter.dtype is not dtype or parameter.get_device() != x.get_device()
                or parameter.dim() != 1 or parameter.shape[0] != x.shape[-1]
                or not parameter.is_contiguous()):
            return False
    return True


def _plain_residual(x, residual):
    """Whether a fused add's residual is plain beside a plain x: x's shape, dtype and device,
    contiguous, and apart from x in memory."""
    if (residual.dtype is not x.dtype or residual.shape != x.shape
            or residual.get_device() != x.get_device() or not residual.is_contiguous()):
        return False
    size, start, other = x.numel() * x.element_size(), x.data_ptr(), residual.data_ptr()
    return start + size <= other or other + size <= start


def _plain_call(op, eps, gemma, x, y, weight, bias=None):
    """A normlab_call for a plain forward call (_plain) of @p x into @p y (x's layout), filled
    in the order of NormlabCall's fields."""
    cols = x.shape[-1]
    parameter = weight if weight is not None else bias if bias is not None else x
    call = capi.NormlabCall(op, _DTYPES[x.dtype], _DTYPES[parameter.dtype], gemma,
                            x.numel() // cols, cols, eps, x.data_ptr(), cols, None, 0,
                            y.data_ptr(), cols)
    if weight is not None:
        call.weight = weight.data_ptr()
    if bias is not None:
        call.bias = bias.data_ptr()
    return call


def _fused_in_place(call, x, residual):
    """Launches a plain fused add, its call made by _plain_call with y over x, in place:
    residual <- x + residual, x <- the norm of it."""
    call.residual = call.residual_out = residual.data_ptr()
    call.residual_stride = call.residual_out_stride = call.x_stride
    _launch(call, x)


# ---------------------------------------------------------------- several trailing dimensions


def _over_trailing(norm, x, normalized_shape, out, **parameters):
    """@p norm(rows, flat parameters, flat out) over the trailing dimensions normalized_shape
    (by default the parameters' shape) of x, seen as one: a norm over them is the norm of their
    elements in one row. The parameters must have that shape; out must take a view of it."""
    source = "normalized_shape"
    if normalized_shape is None:
        source, normalized_shape = next((f"{name} (normalized_shape, when not given)", p.shape)
                                        for name, p in parameters.items() if p is not None)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    count = len(shape)
    if count == 0 or tuple(x.shape[x.dim() - count:]) != shape:
        raise ValueError(f"{source} has shape {shape}; x has shape {tuple(x.shape)}, whose "
                         "trailing dimensions must be it")
    for name, parameter in parameters.items():
        if parameter is not None and tuple(parameter.shape) != shape:
            raise ValueError(f"{name} has shape {tuple(parameter.shape)}; normalized_shape "
                             f"needs {shape}")
    flat = [p.reshape(-1) if p is not None else None for p in parameters.values()]
    rows = x.flatten(x.dim() - count) if count > 1 else x
    if out is not None:
        _check_activation("out", out, x)
        norm(rows, flat, out.view(rows.shape))  # a view, or a RuntimeError: out is written
        return out
    return norm(rows, flat, None).view(x.shape)


# ---------------------------------------------------------------- RMSNorm


def _rms_norm_outputs(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
                      gemma: bool):
    _check_norm(x, weight, bias, eps, gemma)
    return _like_rows(x), _per_row(x)


def _rms_norm_body(x, weight, bias, eps, gemma):
    """y = x / sqrt(mean(x^2) + eps) * w (* (1 + w) with gemma) + b, and rstd per row."""
    y, rstd = _rms_norm_outputs(x, weight, bias, eps, gemma)
    if x.numel():
        _run(capi.OP_RMSNORM, eps, gemma, x=x, y=y, weight=weight, bias=bias, rstd=rstd)
    return y, rstd


@torch.library.custom_op("normlab::rms_norm", mutates_args=())
def _rms_norm(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
              gemma: bool) -> tuple[Tensor, Tensor]:
    """The op: _rms_norm_body, through PyTorch's dispatch."""
    return _rms_norm_body(x, weight, bias, eps, gemma)


_rms_norm.register_fake(_rms_norm_outputs)


def _rms_norm_backward_outputs(dy: Tensor, x: Tensor, weight: Optional[Tensor],
                               bias: Optional[Tensor], rstd: Tensor, gemma: bool):
    return _backward_outputs(dy, x, weight, bias)


def _rms_norm_backward_body(dy, x, weight, bias, rstd, gemma):
    """dx, dweight and dbias (each empty without its parameter) from dy, x, weight and the
    forward's rstd; bias is not read, only whether there is one."""
    dx, dweight, dbias = _rms_norm_backward_outputs(dy, x, weight, bias, rstd, gemma)
    if x.numel():
        _run(capi.OP_RMSNORM_BACKWARD, _BACKWARD_EPS, gemma, dy=dy, x=x, dx=dx, weight=weight,
             dweight=dweight if weight is not None else None,
             dbias=dbias if bias is not None else None, saved_rstd=rstd)
    else:
        _zero_without_rows(dweight, dbias)
    return dx, dweight, dbias


@torch.library.custom_op("normlab::rms_norm_backward", mutates_args=())
def _rms_norm_backward(dy: Tensor, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                       rstd: Tensor, gemma: bool) -> tuple[Tensor, Tensor, Tensor]:
    """The op: _rms_norm_backward_body, through PyTorch's dispatch."""
    return _rms_norm_backward_body(dy, x, weight, bias, rstd, gemma)


_rms_norm_backward.register_fake(_rms_norm_backward_outputs)


def _rms_norm_setup(ctx, inputs, output):
    x, weight, bias, _, gemma = inputs
    rstd = output[1]
    ctx.mark_non_differentiable(rstd)
    ctx.save_for_backward(x, weight, bias, rstd)
    ctx.gemma = gemma


def _rms_norm_gradients(ctx, dy, _):
    x, weight, bias, rstd = ctx.saved_tensors
    dx, dweight, dbias = torch.ops.normlab.rms_norm_backward(_rows_of(dy), x, weight, bias, rstd,
                                                             ctx.gemma)
    return (dx, dweight if weight is not None else None, dbias if bias is not None else None,
            None, None)


_rms_norm.register_autograd(_rms_norm_gradients, setup_context=_rms_norm_setup)


class _EagerRMSNorm(torch.autograd.Function):
    """rms_norm with autograd in eager mode: the op's bodies and gradients without PyTorch's
    dispatch of the custom op (torch.compile traces the op itself)."""

    @staticmethod
    def forward(ctx, x, weight, bias, eps, gemma):
        y, rstd = _rms_norm_body(x, weight, bias, eps, gemma)
        ctx.save_for_backward(x, weight, bias, rstd)
        ctx.gemma = gemma
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, bias, rstd = ctx.saved_tensors
        dx, dweight, dbias = _rms_norm_backward_body(_rows_of(dy), x, weight, bias, rstd,
                                                     ctx.gemma)
        return (dx, dweight if weight is not None else None, dbias if bias is not None else None,
                None, None)


def _rms_norm_out_checks(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                         eps: float, gemma: bool, out: Tensor):
    _check_norm(x, weight, bias, eps, gemma, out=out)


def _rms_norm_out_body(x, weight, bias, eps, gemma, out):
    """rms_norm written into a preallocated out (rows one stride apart); no autograd."""
    _rms_norm_out_checks(x, weight, bias, eps, gemma, out)
    if x.numel():
        _check_disjoint("out", out, "x", x)
        _run(capi.OP_RMSNORM, eps, gemma, x=x, y=out, weight=weight, bias=bias)


@torch.library.custom_op("normlab::rms_norm_out", mutates_args=("out",))
def _rms_norm_out(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
                  gemma: bool, out: Tensor) -> None:
    """The op: _rms_norm_out_body, through PyTorch's dispatch."""
    _rms_norm_out_body(x, weight, bias, eps, gemma, out)


_rms_norm_out.register_fake(_rms_norm_out_checks)


def rms_norm(x, weight, eps, gemma=False, *, bias=None, out=None, normalized_shape=None):
    """RMSNorm over the last dimension of @p x: x / sqrt(mean(x^2) + eps) * weight, or
    * (1 + weight) with gemma (Gemma's convention), + bias when given (PyTorch-style modules
    with a bias). weight and bias may be None; they share one dtype, x's or float32, or any with
    float32 x. y has x's dtype (F.rms_norm would promote to float32 with a float32 weight).
    With out (x's shape and dtype, rows one stride apart) y is written there and out returned;
    that form has no autograd. With normalized_shape (or a weight of several dimensions), over
    that many trailing dimensions, as PyTorch's: the parameters then have that shape.

    x's rows are read where they are when they are one stride apart or in two levels: a head
    view such as q = qkv[:, :32, :] of a fused projection qkv of shape (tokens, 48, head_dim),
    whose rows are heads head_dim apart within a token and tokens 48 * head_dim apart (QK-norm).
    Where x's leading dimensions collapse into no fewer than three levels, the op normalises a
    contiguous copy of x instead (a copy, in time and memory). y is contiguous."""
    if out is None and normalized_shape is None and not _compiling() and _extension is not None:
        y = _extension.rms_norm(x, weight, bias, eps, gemma)
        if y is not None:
            return y
    parameter = weight if weight is not None else bias
    if normalized_shape is not None or (parameter is not None and parameter.dim() > 1):
        return _over_trailing(lambda x, p, out: rms_norm(x, p[0], eps, gemma, bias=p[1], out=out),
                              x, normalized_shape, out, weight=weight, bias=bias)
    if out is None:
        if not _eager(x):
            return torch.ops.normlab.rms_norm(x, weight, bias, eps, gemma)[0]
        if _records_grad(x, weight, bias):
            return _EagerRMSNorm.apply(x, weight, bias, eps, gemma)
        if _plain(x, weight, bias) and 0 <= eps < math.inf and (weight is not None or not gemma):
            y = torch.empty_like(x)  # no statistics: nothing will ask for them
            _launch(_plain_call(capi.OP_RMSNORM, eps, gemma, x, y, weight, bias), x)
            return y
        return _rms_norm_body(x, weight, bias, eps, gemma)[0]
    _refuse_grad("rms_norm(out=...)", "rms_norm without out=", x=x, weight=weight, bias=bias)
    if _eager(x):
        _rms_norm_out_body(x, weight, bias, eps, gemma, out)
    else:
        torch.ops.normlab.rms_norm_out(x, weight, bias, eps, gemma, out)
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
    return _backward_outputs(dy, x, weight, bias)


def _layer_norm_backward_body(dy, x, weight, bias, mean, rstd):
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


@torch.library.custom_op("normlab::layer_norm_backward", mutates_args=())
def _layer_norm_backward(dy: Tensor, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                         mean: Tensor, rstd: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The op: _layer_norm_backward_body, through PyTorch's dispatch."""
    return _layer_norm_backward_body(dy, x, weight, bias, mean, rstd)


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


class _EagerLayerNorm(torch.autograd.Function):
    """layer_norm with autograd in eager mode, as _EagerRMSNorm."""

    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        y, mean, rstd = _layer_norm_body(x, weight, bias, eps)
        ctx.save_for_backward(x, weight, bias, mean, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, bias, mean, rstd = ctx.saved_tensors
        dx, dweight, dbias = _layer_norm_backward_body(_rows_of(dy), x, weight, bias, mean, rstd)
        return (dx, dweight if weight is not None else None, dbias if bias is not None else None,
                None)


def _layer_norm_out_checks(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                           eps: float, out: Tensor):
    _check_norm(x, weight, bias, eps, out=out)


def _layer_norm_out_body(x, weight, bias, eps, out):
    """layer_norm written into a preallocated out (rows one stride apart); no autograd."""
    _layer_norm_out_checks(x, weight, bias, eps, out)
    if x.numel():
        _check_disjoint("out", out, "x", x)
        _run(capi.OP_LAYERNORM, eps, x=x, y=out, weight=weight, bias=bias)


@torch.library.custom_op("normlab::layer_norm_out", mutates_args=("out",))
def _layer_norm_out(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
                    out: Tensor) -> None:
    """The op: _layer_norm_out_body, through PyTorch's dispatch."""
    _layer_norm_out_body(x, weight, bias, eps, out)


_layer_norm_out.register_fake(_layer_norm_out_checks)


def layer_norm(x, weight, bias, eps, *, out=None, normalized_shape=None):
    """LayerNorm over the last dimension of @p x: (x - mean) / sqrt(var + eps) * weight + bias.
    weight and bias may be None; they share one dtype, x's or float32. y has x's dtype. With
    out and normalized_shape, and x's rows (one stride or two levels read where they are, more
    levels through a contiguous copy), as rms_norm."""
    if out is None and normalized_shape is None and not _compiling() and _extension is not None:
        y = _extension.layer_norm(x, weight, bias, eps)
        if y is not None:
            return y
    parameter = weight if weight is not None else bias
    if normalized_shape is not None or (parameter is not None and parameter.dim() > 1):
        return _over_trailing(lambda x, p, out: layer_norm(x, p[0], p[1], eps, out=out), x,
                              normalized_shape, out, weight=weight, bias=bias)
    if out is None:
        if not _eager(x):
            return torch.ops.normlab.layer_norm(x, weight, bias, eps)[0]
        if _records_grad(x, weight, bias):
            return _EagerLayerNorm.apply(x, weight, bias, eps)
        if _plain(x, weight, bias) and 0 <= eps < math.inf:
            y = torch.empty_like(x)
            _launch(_plain_call(capi.OP_LAYERNORM, eps, False, x, y, weight, bias), x)
            return y
        return _layer_norm_body(x, weight, bias, eps)[0]
    _refuse_grad("layer_norm(out=...)", "layer_norm without out=", x=x, weight=weight, bias=bias)
    if _eager(x):
        _layer_norm_out_body(x, weight, bias, eps, out)
    else:
        torch.ops.normlab.layer_norm_out(x, weight, bias, eps, out)
    return out


# ---------------------------------------------------------------- residual add + norm, in place


def _fused_add_rms_norm_checks(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                               eps: float, gemma: bool):
    _check_norm(x, weight, None, eps, gemma, residual=residual)


def _fused_add_rms_norm_body(x, residual, weight, eps, gemma):
    """residual <- x + residual (rounded to residual's dtype: x's, or float32 with 16-bit x);
    x <- rms_norm(residual)."""
    _fused_add_rms_norm_checks(x, residual, weight, eps, gemma)
    if x.numel():
        _check_disjoint("x", x, "residual", residual)
        _run(capi.OP_ADD_RMSNORM, eps, gemma, x=x, residual=residual, y=x, residual_out=residual,
             weight=weight)


@torch.library.custom_op("normlab::fused_add_rms_norm_", mutates_args=("x", "residual"))
def _fused_add_rms_norm_(x: Tensor, residual: Tensor, weight: Optional[Tensor], eps: float,
                         gemma: bool) -> None:
    """The op: _fused_add_rms_norm_body, through PyTorch's dispatch."""
    _fused_add_rms_norm_body(x, residual, weight, eps, gemma)


_fused_add_rms_norm_.register_fake(_fused_add_rms_norm_checks)


def fused_add_rms_norm_(x, residual, weight, eps, gemma=False):
    """In place, as vLLM and FlashInfer: residual <- x + residual, then x <- RMSNorm of it.
    Returns (x, residual). The residual may be float32 with 16-bit x (the stream kept in float32:
    h is added and normalised in float32, only x's result is rounded). Forward only: for
    training, fused_add_rms_norm."""
    if not _compiling() and _extension is not None:
        done = _extension.fused_add_rms_norm_(x, residual, weight, eps, gemma)
        if done is not None:
            return done
    _refuse_grad("fused_add_rms_norm_", "fused_add_rms_norm(x, residual, weight, eps)", x=x,
                 residual=residual, weight=weight)
    if not _eager(x):
        torch.ops.normlab.fused_add_rms_norm_(x, residual, weight, eps, gemma)
    elif (_plain(x, weight) and _plain_residual(x, residual) and 0 <= eps < math.inf
          and (weight is not None or not gemma)):
        _fused_in_place(_plain_call(capi.OP_ADD_RMSNORM, eps, gemma, x, x, weight), x, residual)
    else:
        _fused_add_rms_norm_body(x, residual, weight, eps, gemma)
    return x, residual


def _fused_add_layer_norm_checks(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                                 bias: Optional[Tensor], eps: float):
    _check_norm(x, weight, bias, eps, residual=residual)


def _fused_add_layer_norm_body(x, residual, weight, bias, eps):
    """residual <- x + residual (rounded to residual's dtype: x's, or float32 with 16-bit x);
    x <- layer_norm(residual)."""
    _fused_add_layer_norm_checks(x, residual, weight, bias, eps)
    if x.numel():
        _check_disjoint("x", x, "residual", residual)
        _run(capi.OP_ADD_LAYERNORM, eps, x=x, residual=residual, y=x, residual_out=residual,
             weight=weight, bias=bias)


@torch.library.custom_op("normlab::fused_add_layer_norm_", mutates_args=("x", "residual"))
def _fused_add_layer_norm_(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                           bias: Optional[Tensor], eps: float) -> None:
    """The op: _fused_add_layer_norm_body, through PyTorch's dispatch."""
    _fused_add_layer_norm_body(x, residual, weight, bias, eps)


_fused_add_layer_norm_.register_fake(_fused_add_layer_norm_checks)


def fused_add_layer_norm_(x, residual, weight, bias, eps):
    """In place: residual <- x + residual, then x <- LayerNorm of it. Returns (x, residual).
    The residual may be float32 with 16-bit x, as for fused_add_rms_norm_. Forward only: for
    training, fused_add_layer_norm."""
    if not _compiling() and _extension is not None:
        done = _extension.fused_add_layer_norm_(x, residual, weight, bias, eps)
        if done is not None:
            return done
    _refuse_grad("fused_add_layer_norm_", "fused_add_layer_norm(x, residual, weight, bias, eps)",
                 x=x, residual=residual, weight=weight, bias=bias)
    if not _eager(x):
        torch.ops.normlab.fused_add_layer_norm_(x, residual, weight, bias, eps)
    elif _plain(x, weight, bias) and _plain_residual(x, residual) and 0 <= eps < math.inf:
        _fused_in_place(_plain_call(capi.OP_ADD_LAYERNORM, eps, False, x, x, weight, bias), x,
                        residual)
    else:
        _fused_add_layer_norm_body(x, residual, weight, bias, eps)
    return x, residual


# ---------------------------------------------------------------- residual add + norm, autograd
#
# (y, residual_out) = fused_add_*_norm(x, residual, ...): h = x + residual is stored in
# residual_out in residual's dtype (x's, or float32 with 16-bit x: the stream kept in float32)
# and normalised as stored, y in x's dtype. Backward: the gradient reaching h is the norm's
# backward of dy (from the stored h and the forward's statistics) plus residual_out's gradient,
# which the backward kernels add into dx (NormCall::dresidual); x and residual both receive it,
# each in its dtype. The parameters' gradients are the backward's column sums.


def _fused_add_outputs(x, residual, weight, bias, eps, gemma=False):
    _check_norm(x, weight, bias, eps, gemma, residual=residual)
    return _like_rows(x), _like_rows(residual), _per_row(x)


def _fused_add_rms_norm_outputs(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                                eps: float, gemma: bool):
    return _fused_add_outputs(x, residual, weight, None, eps, gemma)


@torch.library.custom_op("normlab::fused_add_rms_norm", mutates_args=())
def _fused_add_rms_norm(x: Tensor, residual: Tensor, weight: Optional[Tensor], eps: float,
                        gemma: bool) -> tuple[Tensor, Tensor, Tensor]:
    """y, residual_out = x + residual, and rstd per row."""
    y, h, rstd = _fused_add_rms_norm_outputs(x, residual, weight, eps, gemma)
    if x.numel():
        _run(capi.OP_ADD_RMSNORM, eps, gemma, x=x, residual=residual, y=y, residual_out=h,
             weight=weight, rstd=rstd)
    return y, h, rstd


_fused_add_rms_norm.register_fake(_fused_add_rms_norm_outputs)


def _fused_add_layer_norm_outputs(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                                  bias: Optional[Tensor], eps: float):
    y, h, rstd = _fused_add_outputs(x, residual, weight, bias, eps)
    return y, h, _per_row(x), rstd


@torch.library.custom_op("normlab::fused_add_layer_norm", mutates_args=())
def _fused_add_layer_norm(x: Tensor, residual: Tensor, weight: Optional[Tensor],
                          bias: Optional[Tensor], eps: float) -> tuple[Tensor, Tensor, Tensor,
                                                                       Tensor]:
    """y, residual_out = x + residual, and mean and rstd per row."""
    y, h, mean, rstd = _fused_add_layer_norm_outputs(x, residual, weight, bias, eps)
    if x.numel():
        _run(capi.OP_ADD_LAYERNORM, eps, x=x, residual=residual, y=y, residual_out=h,
             weight=weight, bias=bias, mean=mean, rstd=rstd)
    return y, h, mean, rstd


_fused_add_layer_norm.register_fake(_fused_add_layer_norm_outputs)


def _fused_add_backward_outputs(dy: Tensor, dresidual: Tensor, h: Tensor,
                                weight: Optional[Tensor], bias: Optional[Tensor],
                                mean: Optional[Tensor], rstd: Tensor, gemma: bool):
    _check_activation("dresidual", dresidual, h)
    return _backward_outputs(dy, h, weight, bias)


@torch.library.custom_op("normlab::fused_add_norm_backward", mutates_args=())
def _fused_add_norm_backward(dy: Tensor, dresidual: Tensor, h: Tensor, weight: Optional[Tensor],
                             bias: Optional[Tensor], mean: Optional[Tensor], rstd: Tensor,
                             gemma: bool) -> tuple[Tensor, Tensor, Tensor]:
    """dh (in h's dtype: the norm's backward of dy plus dresidual), dweight and dbias (empty
    without their parameter), from the stored h and the forward's statistics: LayerNorm's where
    mean is given, else RMSNorm's."""
    dh, dweight, dbias = _fused_add_backward_outputs(dy, dresidual, h, weight, bias, mean, rstd,
                                                     gemma)
    if h.numel():
        op = capi.OP_LAYERNORM_BACKWARD if mean is not None else capi.OP_RMSNORM_BACKWARD
        _run(op, _BACKWARD_EPS, gemma, dy=dy, dresidual=dresidual, x=h, dx=dh, weight=weight,
             dweight=dweight if weight is not None else None,
             dbias=dbias if bias is not None else None, saved_mean=mean, saved_rstd=rstd)
    else:
        _zero_without_rows(dweight, dbias)
    return dh, dweight, dbias


_fused_add_norm_backward.register_fake(_fused_add_backward_outputs)


def _fused_add_gradients(ctx, dy, dresidual):
    """The gradients of (x, residual, weight, and bias or gemma's place, eps)."""
    h, weight, bias, mean, rstd = ctx.saved_tensors
    dh, dweight, dbias = torch.ops.normlab.fused_add_norm_backward(
        _rows_of(dy), _rows_of(dresidual), h, weight, bias, mean, rstd, ctx.gemma)
    return (dh.to(ctx.x_dtype), dh, dweight if weight is not None else None,
            dbias if bias is not None else None, None)


def _fused_add_rms_norm_setup(ctx, inputs, output):
    x, _, weight, _, gemma = inputs
    _, h, rstd = output
    ctx.mark_non_differentiable(rstd)
    ctx.save_for_backward(h, weight, None, None, rstd)
    ctx.gemma, ctx.x_dtype = gemma, x.dtype


def _fused_add_rms_norm_gradients(ctx, dy, dresidual, _rstd):
    return _fused_add_gradients(ctx, dy, dresidual)


_fused_add_rms_norm.register_autograd(_fused_add_rms_norm_gradients,
                                      setup_context=_fused_add_rms_norm_setup)


def _fused_add_layer_norm_setup(ctx, inputs, output):
    x, _, weight, bias, _ = inputs
    _, h, mean, rstd = output
    ctx.mark_non_differentiable(mean, rstd)
    ctx.save_for_backward(h, weight, bias, mean, rstd)
    ctx.gemma, ctx.x_dtype = False, x.dtype


def _fused_add_layer_norm_gradients(ctx, dy, dresidual, _mean, _rstd):
    return _fused_add_gradients(ctx, dy, dresidual)


_fused_add_layer_norm.register_autograd(_fused_add_layer_norm_gradients,
                                        setup_context=_fused_add_layer_norm_setup)


def fused_add_rms_norm(x, residual, weight, eps, gemma=False):
    """(y, residual_out), with autograd, as Liger's and QuACK's fused add: residual_out = h =
    x + residual in residual's dtype, which is x's or, with 16-bit x, float32 (the residual
    stream kept in float32 across layers: h is never rounded to x's dtype, and its statistics
    are taken of the float32 h); y = RMSNorm(h) in x's dtype. Gradients: x and residual each
    receive dy through the norm plus residual_out's gradient, in their dtypes."""
    y, residual_out, _ = torch.ops.normlab.fused_add_rms_norm(x, residual, weight, eps, gemma)
    return y, residual_out


def fused_add_layer_norm(x, residual, weight, bias, eps):
    """(y, residual_out) as fused_add_rms_norm, with y = LayerNorm(h)."""
    y, residual_out, _, _ = torch.ops.normlab.fused_add_layer_norm(x, residual, weight, bias, eps)
    return y, residual_out
