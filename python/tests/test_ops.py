# SPDX-License-Identifier: Apache-2.0
"""normlab_torch on a GPU: every op against PyTorch's float64 results at normlab's tolerances,
layouts, in place, refusals, autograd, torch.compile and a transformer block."""
import copy

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no CUDA GPU", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

import normlab_torch as nt  # noqa: E402  (a missing library fails here, naming where it looked)
import references as ref  # noqa: E402
from references import assert_close  # noqa: E402

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
EPS = 1e-5


@pytest.fixture
def generator():
    return torch.Generator(device="cuda").manual_seed(18)


def parameter_dtypes(dtype):
    """The parameters' dtypes a call with @p dtype activations takes: its own, and float32;
    with float32 activations every one."""
    return DTYPES if dtype is torch.float32 else sorted({dtype, torch.float32}, key=str)


CASES = [(dtype, weight_dtype) for dtype in DTYPES for weight_dtype in parameter_dtypes(dtype)]
SHAPES = [(37, 1031), (2, 3, 4096), (1, 4096), (5, 24, 64)]


# ---------------------------------------------------------------- forward


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype, weight_dtype", CASES)
def test_rms_norm_matches_torch(generator, shape, dtype, weight_dtype, backend):
    x = ref.activations(shape, dtype, generator)
    w = ref.parameter(shape[-1], weight_dtype, generator)
    assert_close("y", nt.rms_norm(x, w, EPS), ref.rms_norm(x, w, EPS), dtype)


@pytest.mark.parametrize("dtype, weight_dtype", CASES)
def test_rms_norm_gemma_and_no_weight(generator, dtype, weight_dtype):
    x = ref.activations((37, 1031), dtype, generator)
    w = ref.parameter(1031, weight_dtype, generator, centre=0.0)
    assert_close("y (1 + w)", nt.rms_norm(x, w, EPS, gemma=True),
                 ref.rms_norm(x, w, EPS, gemma=True), dtype)
    assert_close("y (no weight)", nt.rms_norm(x, None, EPS), ref.rms_norm(x, None, EPS), dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype, weight_dtype", CASES)
@pytest.mark.parametrize("affine", ["weight and bias", "weight", "none"])
def test_layer_norm_matches_torch(generator, shape, dtype, weight_dtype, affine, backend):
    x = ref.activations(shape, dtype, generator)
    w = ref.parameter(shape[-1], weight_dtype, generator) if affine != "none" else None
    b = ref.parameter(shape[-1], weight_dtype, generator, 0.0) if "bias" in affine else None
    assert_close("y", nt.layer_norm(x, w, b, EPS), ref.layer_norm(x, w, b, EPS), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eps_zero_as_torch_takes_it(generator, dtype):
    x = ref.activations((37, 1031), dtype, generator)
    w = ref.parameter(1031, dtype, generator)
    assert_close("y rms_norm eps=0", nt.rms_norm(x, w, 0.0), ref.rms_norm(x, w, 0.0), dtype)
    assert_close("y layer_norm eps=0", nt.layer_norm(x, w, w, 0.0), ref.layer_norm(x, w, w, 0.0),
                 dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_rows(generator, dtype, backend):
    # Rows of a wider tensor: (2, 19, 1031) inside (2, 19, 1100), offset by 7 elements.
    wide = ref.activations((2, 19, 1100), dtype, generator)
    x = wide[..., 7:1038]
    assert x.stride() == (19 * 1100, 1100, 1)
    w = ref.parameter(1031, dtype, generator)
    b = ref.parameter(1031, dtype, generator, 0.0)
    assert_close("rms_norm y", nt.rms_norm(x, w, EPS), ref.rms_norm(x, w, EPS), dtype)
    assert_close("layer_norm y", nt.layer_norm(x, w, b, EPS), ref.layer_norm(x, w, b, EPS), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_writes_only_its_rows(generator, dtype):
    x = ref.activations((37, 1031), dtype, generator)
    w = ref.parameter(1031, torch.float32, generator)
    b = ref.parameter(1031, torch.float32, generator, 0.0)
    for name, run, want in [
            ("rms_norm", lambda out: nt.rms_norm(x, w, EPS, out=out), ref.rms_norm(x, w, EPS)),
            ("layer_norm", lambda out: nt.layer_norm(x, w, b, EPS, out=out),
             ref.layer_norm(x, w, b, EPS))]:
        poisoned = torch.full((37, 1100), float("nan"), dtype=dtype, device="cuda")
        out = poisoned[:, 40:1071]
        assert run(out) is out
        assert_close(f"{name} out", out, want, dtype)
        untouched = torch.cat([poisoned[:, :40], poisoned[:, 1071:]], dim=1)
        assert untouched.isnan().all(), f"{name} wrote outside out"


@pytest.mark.parametrize("dtype, weight_dtype", CASES)
@pytest.mark.parametrize("shape", [(37, 1031), (2, 3, 4096)])
def test_fused_add_in_place(generator, dtype, weight_dtype, shape, backend):
    x = ref.activations(shape, dtype, generator)
    r = ref.activations(shape, dtype, generator)
    w = ref.parameter(shape[-1], weight_dtype, generator)
    b = ref.parameter(shape[-1], weight_dtype, generator, 0.0)
    h = x + r  # rounded to the dtype, as the kernel stores it

    rms_x, rms_r = x.clone(), r.clone()
    returned = nt.fused_add_rms_norm_(rms_x, rms_r, w, EPS)
    assert returned[0] is rms_x and returned[1] is rms_r
    assert_close("residual (rms)", rms_r, h.double(), dtype)
    assert_close("x (rms)", rms_x, ref.rms_norm(h, w, EPS), dtype)

    ln_x, ln_r = x.clone(), r.clone()
    nt.fused_add_layer_norm_(ln_x, ln_r, w, b, EPS)
    assert_close("residual (layer)", ln_r, h.double(), dtype)
    assert_close("x (layer)", ln_x, ref.layer_norm(h, w, b, EPS), dtype)

    gemma_x, gemma_r = x.clone(), r.clone()
    nt.fused_add_rms_norm_(gemma_x, gemma_r, w, EPS, gemma=True)
    assert_close("x (1 + w)", gemma_x, ref.rms_norm(h, w, EPS, gemma=True), dtype)


FP32_STREAM = [(dtype, weight_dtype) for dtype in (torch.float16, torch.bfloat16)
               for weight_dtype in (dtype, torch.float32)]
# Ragged widths (misaligned tails, streamed rows past 16384 bf16 columns), and a narrow one.
STREAM_SHAPES = [(37, 1031), (2, 3, 4096), (3, 20001), (7, 24)]
# The widest rows whose backward chapter 08's kernels take (a row a block in registers:
# kernels/backward.cuh's kMaxRmsnormCols and kMaxLayernormCols). Wider rows go to chapter 10's
# row over a cluster, on sm_90 and newer GPUs (a dy of another dtype widened as chapter 08
# widens it).
WIDEST_BACKWARD = {"rms": 12288, "layer": 8192}


def wide_backward_refused(name, cols):
    """Whether no kernel takes the backward of a row of @p cols (at most 32768) here."""
    return cols > WIDEST_BACKWARD[name] and torch.cuda.get_device_capability() < (9, 0)


@pytest.mark.parametrize("dtype, weight_dtype", FP32_STREAM)
@pytest.mark.parametrize("shape", STREAM_SHAPES)
def test_fused_add_in_place_with_a_float32_stream(generator, dtype, weight_dtype, shape, backend):
    """16-bit x with a float32 residual: h = x + residual in float32, never rounded to x's
    dtype (the stream's bar is float32's), normalised as it is; x's result rounded once."""
    x = ref.activations(shape, dtype, generator)
    r = ref.activations(shape, torch.float32, generator) * 3 + 0.1  # values bf16 cannot hold
    w = ref.parameter(shape[-1], weight_dtype, generator)
    b = ref.parameter(shape[-1], weight_dtype, generator, 0.0)
    h = x.double() + r.double()
    for name, call, want in (
            ("rms", lambda x, r: nt.fused_add_rms_norm_(x, r, w, EPS), ref.rms_norm(h, w, EPS)),
            ("layer", lambda x, r: nt.fused_add_layer_norm_(x, r, w, b, EPS),
             ref.layer_norm(h, w, b, EPS))):
        got_x, got_r = x.clone(), r.clone()
        call(got_x, got_r)
        assert got_r.dtype is torch.float32
        assert_close(f"residual ({name})", got_r, h, torch.float32)
        assert_close(f"x ({name})", got_x, want, dtype)


def test_a_float32_stream_is_not_rounded_before_the_statistics(generator, backend):
    """The known-wrong rule, h rounded to bf16 before LayerNorm's statistics, is outside the
    float64 comparison's bar: rows of mean 64 and spread 1, where bf16 keeps 1 bit in 4."""
    x = torch.zeros(16, 1000, dtype=torch.bfloat16, device="cuda")
    r = 64 + torch.randn(16, 1000, generator=generator, device="cuda")
    rounded = ref.layer_norm((x.float() + r).bfloat16(), None, None, EPS)
    exact = ref.layer_norm(x.double() + r.double(), None, None, EPS)
    with pytest.raises(AssertionError):
        assert_close("rounded h", rounded.bfloat16(), exact, torch.bfloat16)
    got_x = x.clone()
    nt.fused_add_layer_norm_(got_x, r.clone(), None, None, EPS)
    assert_close("x", got_x, exact, torch.bfloat16)


@pytest.mark.parametrize("dtype, weight_dtype, stream",
                         [(dtype, weight_dtype, torch.float32) for dtype, weight_dtype in FP32_STREAM]
                         + [(torch.bfloat16, torch.float32, torch.bfloat16),
                            (torch.float32, torch.bfloat16, torch.float32)])
@pytest.mark.parametrize("shape", STREAM_SHAPES)
def test_fused_add_gradients(generator, dtype, weight_dtype, stream, shape, backend):
    """(y, residual_out) = fused_add_*_norm(x, residual, ...) with autograd, the residual in
    float32 with 16-bit x or in x's dtype: outputs and the gradients of x, residual, weight and
    bias against float64 autograd of the unfused ops, dy and d(residual_out) both given."""
    x = ref.activations(shape, dtype, generator).requires_grad_()
    r = ref.activations(shape, stream, generator).requires_grad_()
    w = ref.parameter(shape[-1], weight_dtype, generator).requires_grad_()
    b = ref.parameter(shape[-1], weight_dtype, generator, 0.0).requires_grad_()
    dy = ref.activations(shape, dtype, generator)
    dh = ref.activations(shape, stream, generator)
    rows = ref.rows_of(x)
    for name, norm, want_norm, parameters in (
            ("rms", lambda x, r: nt.fused_add_rms_norm(x, r, w, EPS),
             lambda h, w, b: ref.rms_norm(h, w, EPS), (w,)),
            ("layer", lambda x, r: nt.fused_add_layer_norm(x, r, w, b, EPS),
             lambda h, w, b: ref.layer_norm(h, w, b, EPS), (w, b))):
        y, h = norm(x, r)
        assert (y.dtype, h.dtype) == (dtype, stream)
        # h as the kernel stores it: rounded to the stream's dtype.
        h_want = (x.detach().double() + r.detach().double()).to(stream).double()
        assert_close(f"{name} residual_out", h, h_want, stream)
        assert_close(f"{name} y", y, want_norm(h_want, w.detach(), b.detach()), dtype)
        loss = (y.double() * dy.double()).sum().add((h.double() * dh.double()).sum())
        # The norm's backward runs on h (in the stream's dtype) with dy in x's dtype.
        if wide_backward_refused(name, shape[-1]):
            # Refused by name: chapter 08's kernels do not hold the row, and this GPU has no
            # clusters for chapter 10's.
            with pytest.raises(ValueError, match="no kernel takes"):
                loss.backward()
            assert all(t.grad is None for t in (x, r, w, b))
            continue
        loss.backward()
        # float64: the norm's gradient at the stored h, plus dh, reaches x and residual.
        leaves = [t.detach().double().requires_grad_() for t in (w, b)]
        hd = h_want.clone().requires_grad_()
        (want_norm(hd, *leaves) * dy.double()).sum().backward()
        dh_want = hd.grad + dh.double()
        assert_close(f"{name} dx", x.grad, dh_want, dtype)
        assert_close(f"{name} dresidual", r.grad, dh_want, stream)
        for parameter, leaf in zip(parameters, leaves):
            assert_close(f"{name} dparameter", parameter.grad, leaf.grad, weight_dtype, rows)
        for t in (x, r, w, b):
            t.grad = None


def test_fused_add_on_halves_of_one_tensor(generator, backend):
    # x and residual interleaved in one buffer (rows of each sit in the other's gaps).
    both = ref.activations((37, 2 * 1031), torch.bfloat16, generator)
    x, r = both[:, :1031], both[:, 1031:]
    w = ref.parameter(1031, torch.bfloat16, generator)
    h = x + r
    nt.fused_add_rms_norm_(x, r, w, EPS)
    assert_close("residual", r, h.double())
    assert_close("x", x, ref.rms_norm(h, w, EPS))


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager_inference_takes_the_short_path_only_when_plain(generator, dtype, monkeypatch):
    """Without autograd, a plain call (contiguous x, parameters as x's last dimension) skips
    PyTorch's dispatch, the statistics and the full checks; it must give the op's bits. Any
    other call goes through the op's checked body, and a call autograd records keeps its
    graph. The ctypes path's: normlab_torch._C takes every eager call in C++."""
    monkeypatch.setattr(nt.ops, "_extension", None)
    x = torch.randn(37, 1031, device="cuda", dtype=dtype, generator=generator)
    w = torch.randn(1031, device="cuda", dtype=dtype, generator=generator)
    b = torch.randn(1031, device="cuda", dtype=dtype, generator=generator)
    strided = torch.randn(37, 2048, device="cuda", dtype=dtype, generator=generator)[:, :1031]
    through_the_op = [torch.ops.normlab.rms_norm(x, w, None, EPS, False)[0],
                      torch.ops.normlab.layer_norm(x, w, b, EPS)[0],
                      torch.ops.normlab.rms_norm(strided, w, None, EPS, False)[0]]
    calls = []
    body = nt.ops._rms_norm_body
    monkeypatch.setattr(nt.ops, "_rms_norm_body", lambda *a: calls.append(1) or body(*a))
    assert torch.equal(nt.rms_norm(x, w, EPS), through_the_op[0])
    assert torch.equal(nt.layer_norm(x, w, b, EPS), through_the_op[1])
    assert not calls, "a plain call took the checked body"
    assert torch.equal(nt.rms_norm(strided, w, EPS), through_the_op[2])
    assert calls, "strided rows did not take the checked body"
    refused = {torch.float32: torch.float64, torch.float16: torch.bfloat16,
               torch.bfloat16: torch.float16}[dtype]
    for weight in (w.to(refused), w[:-1], w.expand(2, -1)):
        with pytest.raises((TypeError, ValueError), match="weight"):
            nt.rms_norm(x, weight, EPS)
    with pytest.raises(ValueError, match="eps"):
        nt.rms_norm(x, w, -1.0)
    y = nt.rms_norm(x, w.clone().requires_grad_(), EPS)
    assert y.grad_fn is not None, "a call autograd must record lost its graph"


def assert_eager_gives_the_custom_ops_bits(norms, x, w, b, dy, r):
    """Each (eager, dispatched) pair of @p norms, functions of (x, w, b), without autograd and
    with it (dy backpropagated), and the fused adds on (x, r): the eager call's outputs, its
    gradients (each in its input's dtype) and the updated tensors must be the bits of the custom
    op through PyTorch's dispatch."""
    for eager, dispatched in norms:
        with torch.no_grad():
            assert torch.equal(eager(x, w, b), dispatched(x, w, b))
        leaves = [[t.clone().requires_grad_() for t in (x, w, b)] for _ in range(2)]
        outputs = [eager(*leaves[0]), dispatched(*leaves[1])]
        assert type(outputs[0].grad_fn) is not type(outputs[1].grad_fn)  # two paths, really
        for y in outputs:
            y.backward(dy)
        assert outputs[0].dtype == x.dtype and torch.equal(outputs[0], outputs[1])
        for name, mine, theirs in zip("xwb", *leaves):
            assert (mine.grad is None) == (theirs.grad is None), name
            if mine.grad is not None:
                assert mine.grad.dtype == theirs.grad.dtype == mine.dtype, name
                assert torch.equal(mine.grad, theirs.grad), name
    for eager, dispatched in (
            (lambda x, r: nt.fused_add_rms_norm_(x, r, w, EPS),
             lambda x, r: torch.ops.normlab.fused_add_rms_norm_(x, r, w, EPS, False)),
            (lambda x, r: nt.fused_add_layer_norm_(x, r, w, b, EPS),
             lambda x, r: torch.ops.normlab.fused_add_layer_norm_(x, r, w, b, EPS))):
        mine, theirs = (x.clone(), r.clone()), (x.clone(), r.clone())
        eager(*mine)
        dispatched(*theirs)
        assert torch.equal(mine[0], theirs[0]) and torch.equal(mine[1], theirs[1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager_paths_give_the_custom_ops_bits(generator, dtype, backend):
    """Eager calls run the ops' bodies directly (autograd through a torch.autograd.Function, or
    the extension's C++ nodes; the fused adds in place): the custom ops' bits."""
    shape, cols = (3, 37, 1031), 1031
    x, dy, r = (torch.randn(shape, device="cuda", dtype=dtype, generator=generator)
                for _ in range(3))
    w, b = (torch.randn(cols, device="cuda", dtype=dtype, generator=generator) for _ in range(2))
    assert_eager_gives_the_custom_ops_bits(
        [(lambda x, w, b: nt.rms_norm(x, w, EPS),
          lambda x, w, b: torch.ops.normlab.rms_norm(x, w, None, EPS, False)[0]),
         (lambda x, w, b: nt.layer_norm(x, w, b, EPS),
          lambda x, w, b: torch.ops.normlab.layer_norm(x, w, b, EPS)[0])], x, w, b, dy, r)


@pytest.mark.parametrize("dtype, weight_dtype", CASES)
def test_mixed_dtypes_and_the_bias_give_the_custom_ops_bits(generator, dtype, weight_dtype,
                                                             backend):
    """As above for every parameter dtype x takes (16-bit ones with float32 x) and RMSNorm with
    a bias (with a weight, with (1 + w), alone). dy is given in another dtype than y's:
    autograd casts it to y's dtype before either node."""
    shape, cols = (3, 37, 1031), 1031
    x, r = (torch.randn(shape, device="cuda", dtype=dtype, generator=generator) for _ in range(2))
    w, b = (torch.randn(cols, device="cuda", dtype=weight_dtype, generator=generator)
            for _ in range(2))
    other = torch.bfloat16 if dtype is not torch.bfloat16 else torch.float32
    dy = torch.randn(shape, device="cuda", dtype=other, generator=generator)
    assert_eager_gives_the_custom_ops_bits(
        [(lambda x, w, b: nt.rms_norm(x, w, EPS, bias=b),
          lambda x, w, b: torch.ops.normlab.rms_norm(x, w, b, EPS, False)[0]),
         (lambda x, w, b: nt.rms_norm(x, w, EPS, gemma=True, bias=b),
          lambda x, w, b: torch.ops.normlab.rms_norm(x, w, b, EPS, True)[0]),
         (lambda x, w, b: nt.rms_norm(x, None, EPS, bias=b),
          lambda x, w, b: torch.ops.normlab.rms_norm(x, None, b, EPS, False)[0]),
         (lambda x, w, b: nt.layer_norm(x, w, b, EPS),
          lambda x, w, b: torch.ops.normlab.layer_norm(x, w, b, EPS)[0])], x, w, b, dy, r)


def test_zero_size_launches_nothing_and_returns_empty(generator, backend):
    w = torch.ones(64, device="cuda")
    for shape in [(0, 64), (2, 0, 64)]:
        x = torch.empty(shape, device="cuda", requires_grad=True)
        y = nt.rms_norm(x, w.requires_grad_(), EPS)
        assert y.shape == x.shape
        y.sum().backward()
        assert x.grad.shape == x.shape and (w.grad == 0).all()
        w.grad = None
        b = torch.ones(64, device="cuda", requires_grad=True)
        nt.layer_norm(x, w, b, EPS).sum().backward()  # zeros, though nothing is launched
        assert (w.grad == 0).all() and (b.grad == 0).all()
        w.grad = None
        nt.rms_norm(x, w, EPS, bias=b).sum().backward()  # RMSNorm's bias: zeros as well
        assert (w.grad == 0).all() and (b.grad == 0).all()
        w.grad = None
        assert nt.layer_norm(x.detach(), w, w, EPS).shape == x.shape
    x = torch.empty(3, 0, device="cuda")
    assert nt.rms_norm(x, torch.empty(0, device="cuda"), EPS).shape == (3, 0)
    r = torch.empty(0, 64, device="cuda")
    nt.fused_add_rms_norm_(torch.empty(0, 64, device="cuda"), r, w.detach(), EPS)


def test_runs_on_the_current_stream(backend):
    # On a side stream, x becomes ones only after a long GPU sleep: a launch on another stream
    # would normalise the zeros it holds before then.
    x = torch.zeros(4, 1024, device="cuda")
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    residual = torch.zeros_like(x)
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)
        x.fill_(1.0)
        y = nt.rms_norm(x, None, EPS)
        centred = nt.layer_norm(x, None, torch.ones(1024, device="cuda"), EPS)
        nt.fused_add_rms_norm_(x, residual, None, EPS)
    side.synchronize()
    assert torch.allclose(y, torch.ones_like(y), atol=1e-4), y[0, :4]
    assert torch.equal(centred, torch.ones_like(centred)), centred[0, :4]
    assert torch.equal(residual, torch.ones_like(residual)), residual[0, :4]


# ---------------------------------------------------------------- refusals


def test_bad_inputs_raise_naming_the_argument_and_launch_nothing(generator, backend):
    x = ref.activations((8, 256), torch.bfloat16, generator)
    w = ref.parameter(256, torch.bfloat16, generator)
    bad = [
        (ValueError, "x is on cpu", lambda out: nt.rms_norm(x.cpu(), None, EPS, out=out)),
        (ValueError, "weight has shape", lambda out: nt.rms_norm(x, w[:255], EPS, out=out)),
        (TypeError, "weight has dtype", lambda out: nt.rms_norm(x, w.half(), EPS, out=out)),
        (TypeError, "bias has dtype", lambda out: nt.layer_norm(x, w, w.float(), EPS, out=out)),
        (ValueError, r"x \(shape \(8, 256\), strides \(1, 8\)\) is not rows",
         lambda out: nt.rms_norm(x.view(256, 8).t(), None, EPS, out=out)),
        (ValueError, "eps must be", lambda out: nt.rms_norm(x, w, -1.0, out=out)),
        (TypeError, "out has dtype", lambda out: nt.rms_norm(x, w, EPS, out=out.float())),
        # (Here out holds NaN either way: this case shows only that the error is raised.)
        (ValueError, "out and x overlap", lambda out: nt.rms_norm(out, w, EPS, out=out)),
        (ValueError, "eps must be", lambda out: nt.rms_norm(x, w, float("nan"), out=out)),
    ]
    for error, message, call in bad:
        out = torch.full_like(x, float("nan"))
        with pytest.raises(error, match=message):
            call(out)
        torch.cuda.synchronize()
        assert out.isnan().all(), f"something was written after refusing: {message}"


def test_bad_residual_raises(generator, backend):
    x = ref.activations((8, 256), torch.float16, generator)
    with pytest.raises(TypeError, match="residual has dtype torch.bfloat16 and x torch.float16"):
        nt.fused_add_rms_norm_(x, x.bfloat16(), None, EPS)
    with pytest.raises(TypeError, match="residual has dtype torch.float16 and x torch.float32"):
        nt.fused_add_rms_norm_(x.float(), x, None, EPS)  # a 16-bit stream with float32 x
    with pytest.raises(ValueError, match="x and residual overlap"):
        nt.fused_add_rms_norm_(x[:, :200], x[:, 56:], None, EPS)
    with pytest.raises(ValueError, match="residual is on cpu"):
        nt.fused_add_rms_norm_(x, x.cpu(), None, EPS)
    wide = torch.zeros(8, 300, dtype=torch.float16, device="cuda")
    nt.fused_add_rms_norm_(wide[:, :150], wide[:, 150:], None, EPS)  # disjoint: accepted


def test_in_place_and_out_refuse_where_grad_is_required(generator, backend):
    x = ref.activations((4, 64), torch.float32, generator).requires_grad_()
    r = torch.zeros_like(x)
    with pytest.raises(RuntimeError, match="fused_add_rms_norm_ is forward only and x requires"):
        nt.fused_add_rms_norm_(x, r, None, EPS)
    with pytest.raises(RuntimeError, match=r"rms_norm\(out=...\) is forward only"):
        nt.rms_norm(x, None, EPS, out=torch.empty_like(x))
    with torch.no_grad():  # inference: allowed
        nt.fused_add_rms_norm_(x, r, None, EPS)


def test_dispatcher_refusal_comes_back_as_value_error(backend):
    # No backward kernel holds an fp32 row of more than 512 KiB: refused by name.
    x = torch.randn(2, 131073, device="cuda", requires_grad=True)
    y = nt.rms_norm(x, None, EPS)
    with pytest.raises(ValueError, match="normlab refused the call"):
        y.sum().backward()


def test_c_abi_refusal_writes_nothing():
    capi = nt.ops.capi
    x = torch.randn(4, 64, device="cuda")
    y = torch.full_like(x, float("nan"))
    call = capi.NormlabCall(op=capi.OP_RMSNORM, dtype=capi.DTYPE_F32, weight_dtype=capi.DTYPE_F32,
                            rows=4, cols=64, eps=-1.0, x=x.data_ptr(), x_stride=64,
                            y=y.data_ptr(), y_stride=64)
    with pytest.raises(ValueError, match="eps"):
        nt.ops._library.run(call, torch.cuda.current_stream().cuda_stream, None)
    torch.cuda.synchronize()
    assert y.isnan().all()
    call.eps = EPS  # the same call, well formed, runs
    nt.ops._library.run(call, torch.cuda.current_stream().cuda_stream, None)
    assert_close("y", y, ref.rms_norm(x, None, EPS))
    kernel, scratch = nt.ops._library.plan(call)
    assert kernel and scratch == 0


# ---------------------------------------------------------------- autograd


def check_gradients(y, dy, got_inputs, want, dtype, rows):
    """Backpropagates dy through y and compares each input's gradient with @p want."""
    y.backward(dy)
    for (name, tensor), wanted in zip(got_inputs, want):
        if tensor is None:
            continue
        is_parameter = name in ("weight", "bias")
        assert_close(f"d{name}", tensor.grad, wanted,
                     tensor.dtype if is_parameter else dtype, rows if is_parameter else None)


@pytest.mark.parametrize("dtype, weight_dtype", CASES)
@pytest.mark.parametrize("shape", [(37, 1031), (2, 3, 4096)])
@pytest.mark.parametrize("gemma", [False, True])
def test_rms_norm_gradients(generator, dtype, weight_dtype, shape, gemma, backend):
    x = ref.activations(shape, dtype, generator).requires_grad_()
    w = ref.parameter(shape[-1], weight_dtype, generator, 0.0 if gemma else 1.0).requires_grad_()
    dy = ref.activations(shape, dtype, generator)
    want = ref.gradients(lambda x, w: ref.rms_norm(x, w, EPS, gemma), dy, x, w)
    check_gradients(nt.rms_norm(x, w, EPS, gemma), dy, [("x", x), ("weight", w)], want, dtype,
                    ref.rows_of(x))


@pytest.mark.parametrize("dtype, weight_dtype", CASES)
@pytest.mark.parametrize("affine", ["weight and bias", "weight", "none"])
def test_layer_norm_gradients(generator, dtype, weight_dtype, affine, backend):
    x = ref.activations((37, 1031), dtype, generator).requires_grad_()
    w = ref.parameter(1031, weight_dtype, generator) if affine != "none" else None
    b = ref.parameter(1031, weight_dtype, generator, 0.0) if "bias" in affine else None
    for p in (w, b):
        if p is not None:
            p.requires_grad_()
    dy = ref.activations((37, 1031), dtype, generator)
    want = ref.gradients(lambda x, w, b: ref.layer_norm(x, w, b, EPS), dy, x, w, b)
    check_gradients(nt.layer_norm(x, w, b, EPS), dy, [("x", x), ("weight", w), ("bias", b)],
                    want, dtype, 37)


@pytest.mark.parametrize("dtype, weight_dtype", [(torch.bfloat16, torch.bfloat16),
                                                 (torch.bfloat16, torch.float32),
                                                 (torch.float32, torch.float32)])
@pytest.mark.parametrize("cols", [12289, 40000, 65536])
def test_gradients_of_rows_wider_than_a_block(generator, dtype, weight_dtype, cols, backend):
    """Past chapter 08's widest rows the backward is chapter 10's row over a cluster (sm_90):
    the same gradients against float64, through autograd."""
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("a row over a thread-block cluster needs sm_90")
    x = ref.activations((3, cols), dtype, generator).requires_grad_()
    w = ref.parameter(cols, weight_dtype, generator).requires_grad_()
    b = ref.parameter(cols, weight_dtype, generator, 0.0).requires_grad_()
    dy = ref.activations((3, cols), dtype, generator)
    want = ref.gradients(lambda x, w: ref.rms_norm(x, w, EPS), dy, x, w)
    check_gradients(nt.rms_norm(x, w, EPS), dy, [("x", x), ("weight", w)], want, dtype, 3)
    x.grad = w.grad = None
    want = ref.gradients(lambda x, w, b: ref.layer_norm(x, w, b, EPS), dy, x, w, b)
    check_gradients(nt.layer_norm(x, w, b, EPS), dy, [("x", x), ("weight", w), ("bias", b)],
                    want, dtype, 3)


@pytest.mark.parametrize("dtype, weight_dtype", CASES)
@pytest.mark.parametrize("shape", [(37, 1031), (2, 3, 129)])
def test_rms_norm_with_bias_and_its_gradients(generator, dtype, weight_dtype, shape, backend):
    """RMSNorm with a bias (PyTorch-style modules with one): y = x * rstd * w + b, dbias the
    column sums of dy; through the function, its autograd and the module."""
    x = ref.activations(shape, dtype, generator).requires_grad_()
    w = ref.parameter(shape[-1], weight_dtype, generator).requires_grad_()
    b = ref.parameter(shape[-1], weight_dtype, generator, 0.0).requires_grad_()
    want = ref.rms_norm(x, w, EPS, bias=b)
    with torch.no_grad():
        assert_close("y (bias)", nt.rms_norm(x, w, EPS, bias=b), want, dtype)
        assert_close("y (bias, no weight)", nt.rms_norm(x, None, EPS, bias=b),
                     ref.rms_norm(x, None, EPS, bias=b), dtype)
    dy = ref.activations(shape, dtype, generator)
    grads = ref.gradients(lambda x, w, b: ref.rms_norm(x, w, EPS, bias=b), dy, x, w, b)
    check_gradients(nt.rms_norm(x, w, EPS, bias=b), dy, [("x", x), ("weight", w), ("bias", b)],
                    grads, dtype, ref.rows_of(x))
    module = nt.RMSNorm(shape[-1], eps=EPS, bias=True, device="cuda", dtype=weight_dtype)
    with torch.no_grad():
        module.weight.copy_(w)
        module.bias.copy_(b)
        assert torch.equal(module(x), nt.rms_norm(x, w, EPS, bias=b))


@pytest.mark.parametrize("op", ["rms_norm", "layer_norm"])
@pytest.mark.parametrize("dtype, dy_dtype", [(d, g) for d in DTYPES for g in DTYPES if d != g])
@pytest.mark.parametrize("shape", [(37, 1031), (3, 20001)])
def test_backward_reads_a_dy_of_another_dtype_exactly(generator, op, dtype, dy_dtype, shape):
    """dy in another dtype than x (autocast), read exactly: against float64 autograd of the
    same dy, at tolerances tight enough that a float32 dy rounded to 16 bits fails them (the
    float32 parameters' gradients); rows chapter 08 holds and wider ones (a cluster's)."""
    if wide_backward_refused(op.split("_")[0], shape[-1]):
        pytest.skip("no kernel takes this row's backward on this GPU (no clusters)")
    rows, cols = shape
    x = ref.activations(shape, dtype, generator)
    w = ref.parameter(cols, torch.float32, generator)
    b = ref.parameter(cols, torch.float32, generator, 0.0)
    dy = ref.activations(shape, dy_dtype, generator)
    if op == "rms_norm":
        _, rstd = torch.ops.normlab.rms_norm(x, w, b, EPS, False)
        dx, dw, db = torch.ops.normlab.rms_norm_backward(dy, x, w, b, rstd, False)
        want = ref.gradients(lambda x, w, b: ref.rms_norm(x, w, EPS, bias=b), dy, x, w, b)
    else:
        _, mean, rstd = torch.ops.normlab.layer_norm(x, w, b, EPS)
        dx, dw, db = torch.ops.normlab.layer_norm_backward(dy, x, w, b, mean, rstd)
        want = ref.gradients(lambda x, w, b: ref.layer_norm(x, w, b, EPS), dy, x, w, b)
    assert (dx.dtype, dw.dtype, db.dtype) == (dtype, torch.float32, torch.float32)
    for name, got, wanted, summed in (("dx", dx, want[0], None), ("dweight", dw, want[1], rows),
                                      ("dbias", db, want[2], rows)):
        assert_close(f"{name} (dy {dy_dtype})", got, wanted, got.dtype, summed)


def test_gradients_of_strided_input_and_expanded_dy(generator, backend):
    # x: rows of a wider tensor; dy: y.sum()'s, ones expanded from one value (strides 0, 0).
    wide = ref.activations((37, 1100), torch.float32, generator).requires_grad_()
    x = wide[:, 7:1038]
    w = ref.parameter(1031, torch.float32, generator).requires_grad_()
    nt.rms_norm(x, w, EPS).sum().backward()
    dy = torch.ones(37, 1031, device="cuda")
    want_dx, want_dw = ref.gradients(lambda x, w: ref.rms_norm(x, w, EPS), dy, x, w)
    assert_close("dx", wide.grad[:, 7:1038], want_dx)
    assert (wide.grad[:, :7] == 0).all() and (wide.grad[:, 1038:] == 0).all()
    assert_close("dweight", w.grad, want_dw, rows=37)


# ---------------------------------------------------------------- head views

# (tokens, heads of the buffer, heads normalised, head_dim): ragged counts, head_dim on and off
# the 16-byte grid, and the QK-norm shape of the issue at a tenth of its tokens.
HEAD_VIEWS = [(99, 14, 7, 64), (37, 5, 3, 100), (819, 48, 32, 128), (3, 3, 2, 4096)]


@pytest.mark.parametrize("tokens, buffer_heads, heads, head_dim", HEAD_VIEWS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_head_views_forward_and_gradients(generator, tokens, buffer_heads, heads, head_dim, dtype,
                                          backend):
    """q = qkv[:, :heads, :] normalised where it is (two levels of rows), k of the heads after
    it (a grouped-query projection's), against float64; the gradients reach the buffer's slices
    and nothing else."""
    qkv = ref.activations((tokens, buffer_heads, head_dim), dtype, generator).requires_grad_()
    w = ref.parameter(head_dim, torch.float32, generator).requires_grad_()
    b = ref.parameter(head_dim, torch.float32, generator, 0.0).requires_grad_()
    k_heads = max(1, (buffer_heads - heads) // 2)
    q, k = qkv[:, :heads, :], qkv[:, heads:heads + k_heads, :]
    assert q.stride() == (buffer_heads * head_dim, head_dim, 1)
    yq, yk = nt.rms_norm(q, w, EPS), nt.layer_norm(k, w, b, EPS)
    assert_close("y of q", yq, ref.rms_norm(q, w, EPS), dtype)
    assert_close("y of k", yk, ref.layer_norm(k, w, b, EPS), dtype)
    dq, dk = ref.activations(q.shape, dtype, generator), ref.activations(k.shape, dtype, generator)
    want_q = ref.gradients(lambda x, w: ref.rms_norm(x, w, EPS), dq, q, w)
    want_k = ref.gradients(lambda x, w, b: ref.layer_norm(x, w, b, EPS), dk, k, w, b)
    torch.autograd.backward([yq, yk], [dq, dk])
    expected = torch.zeros_like(qkv, dtype=torch.float64)
    expected[:, :heads] = want_q[0]
    expected[:, heads:heads + k_heads] = want_k[0]
    assert_close("dqkv", qkv.grad, expected, dtype)
    assert_close("dweight", w.grad, want_q[1] + want_k[1], torch.float32,
                 tokens * (heads + k_heads))
    assert_close("dbias", b.grad, want_k[2], torch.float32, tokens * k_heads)


def test_head_views_through_out_compile_and_three_levels(generator, backend):
    qkv = ref.activations((77, 12, 128), torch.bfloat16, generator)
    w = ref.parameter(128, torch.bfloat16, generator)
    q = qkv[:, :8, :]
    out = torch.full(q.shape, float("nan"), dtype=q.dtype, device="cuda")
    assert nt.rms_norm(q, w, EPS, out=out) is out
    assert_close("out", out, ref.rms_norm(q, w, EPS))
    torch._dynamo.reset()
    compiled = torch.compile(lambda qkv, w: nt.rms_norm(qkv[:, :8, :], w, EPS), fullgraph=True)
    assert_close("compiled", compiled(qkv, w), ref.rms_norm(q, w, EPS))
    three = qkv.view(7, 11, 12, 128)[:, :5, :3, :]  # three levels: a contiguous copy is read
    assert_close("three levels", nt.layer_norm(three, w, None, EPS),
                 ref.layer_norm(three, w, None, EPS))
    assert torch.equal(nt.rms_norm(q, w, EPS), nt.rms_norm(q.contiguous(), w, EPS))


def test_statistics_are_not_differentiable(generator):
    x = ref.activations((4, 64), torch.float32, generator).requires_grad_()
    y, rstd = torch.ops.normlab.rms_norm(x, None, None, EPS, False)
    assert y.requires_grad and not rstd.requires_grad
    assert_close("rstd", rstd, x.double().pow(2).mean(-1).add(EPS).rsqrt(), torch.float32)


@pytest.mark.parametrize("op", ["rms_norm", "layer_norm", "rms_norm_backward",
                                "layer_norm_backward", "rms_norm_out", "layer_norm_out",
                                "fused_add_rms_norm_", "fused_add_layer_norm_",
                                "fused_add_rms_norm", "fused_add_layer_norm",
                                "fused_add_rms_norm_fp32_stream", "fused_add_norm_backward"])
def test_opcheck(generator, op):
    """torch.library.opcheck: schema (what is mutated), fake implementation against the real
    one, autograd registration, and AOT dispatch with dynamic shapes."""
    x = ref.activations((5, 24, 64), torch.bfloat16, generator)
    w = ref.parameter(64, torch.float32, generator)
    stat = torch.ones(5, 24, device="cuda")
    arguments = {
        "rms_norm": (x, w, w, EPS, True),
        "layer_norm": (x, w, w, EPS),
        "rms_norm_backward": (x, x, w, w, stat, False),
        "layer_norm_backward": (x, x, w, w, stat, stat),
        "rms_norm_out": (x, w, None, EPS, False, torch.empty_like(x)),
        "layer_norm_out": (x, w, None, EPS, torch.empty_like(x)),
        "fused_add_rms_norm_": (x.clone(), x.clone(), w, EPS, False),
        "fused_add_layer_norm_": (x.clone(), x.clone(), w, None, EPS),
        "fused_add_rms_norm": (x, x.clone(), w, EPS, True),
        "fused_add_layer_norm": (x, x.clone(), w, w, EPS),
        "fused_add_rms_norm_fp32_stream": (x, x.float(), w, EPS, False),
        "fused_add_norm_backward": (x, x.clone(), x.clone(), w, w, stat, stat, False),
    }[op]
    name = op.removesuffix("_fp32_stream")
    torch.library.opcheck(getattr(torch.ops.normlab, name).default, arguments)


# ---------------------------------------------------------------- torch.compile


def norms(x, r, w, b):
    """Every op once: the differentiable ones and, without grad, the in-place ones."""
    with torch.no_grad():
        xr, rr = x.detach().clone(), r.clone()
        nt.fused_add_rms_norm_(xr, rr, w.detach(), EPS)
        nt.fused_add_layer_norm_(xr, rr, w.detach(), b.detach(), EPS)
    return nt.rms_norm(x, w, EPS), nt.layer_norm(x, w, b, EPS), xr, rr


def test_compile_full_graph_without_break(generator):
    x = ref.activations((37, 1031), torch.bfloat16, generator).requires_grad_()
    r = ref.activations((37, 1031), torch.bfloat16, generator)
    w = ref.parameter(1031, torch.float32, generator).requires_grad_()
    b = ref.parameter(1031, torch.float32, generator, 0.0).requires_grad_()
    torch._dynamo.reset()
    explained = torch._dynamo.explain(norms)(x, r, w, b)
    assert explained.graph_break_count == 0, explained.break_reasons
    assert explained.graph_count == 1

    # The same kernels run compiled and eager: outputs and gradients agree.
    dy = ref.activations((37, 1031), torch.bfloat16, generator)
    results = []
    for function in (norms, torch.compile(norms, fullgraph=True)):
        outputs = function(x, r, w, b)
        (outputs[0] + outputs[1]).backward(dy)
        results.append((outputs, [t.grad for t in (x, w, b)]))
        for t in (x, w, b):
            t.grad = None
    (eager, eager_grads), (compiled, compiled_grads) = results
    for name, got, want in zip(("rms_norm", "layer_norm", "fused x", "fused residual"),
                               compiled, eager):
        assert_close(f"compiled {name}", got, want.double())
    for name, got, want in zip(("dx", "dweight", "dbias"), compiled_grads, eager_grads):
        assert_close(f"compiled {name}", got, want.double(), rows=37 if name != "dx" else None)
    assert_close("rms_norm", eager[0], ref.rms_norm(x, w, EPS))


# ---------------------------------------------------------------- modules


@pytest.mark.parametrize("make", [
    lambda: torch.nn.RMSNorm(1031),  # eps None: finfo(dtype).eps
    lambda: torch.nn.RMSNorm(1031, eps=1e-6, elementwise_affine=False),
    lambda: torch.nn.LayerNorm(1031),
    lambda: torch.nn.LayerNorm(1031, bias=False),
    lambda: torch.nn.LayerNorm(1031, elementwise_affine=False)])
def test_module_from_torch_matches_it(generator, make):
    theirs = make().cuda()
    for p in theirs.parameters():
        p.data = ref.parameter(p.numel(), torch.float32, generator, p.data.mean().item())
    ours = (nt.RMSNorm if isinstance(theirs, torch.nn.RMSNorm) else nt.LayerNorm).from_torch(
        theirs)
    assert ours.state_dict().keys() == theirs.state_dict().keys()
    x = ref.activations((3, 37, 1031), torch.float32, generator)
    if isinstance(theirs, torch.nn.RMSNorm):
        eps = theirs.eps if theirs.eps is not None else torch.finfo(x.dtype).eps
        want = ref.rms_norm(x, theirs.weight, eps)
    else:
        want = ref.layer_norm(x, theirs.weight, theirs.bias, theirs.eps)
    assert_close("y", ours(x), want.detach())


@pytest.mark.parametrize("make", [lambda: torch.nn.LayerNorm((8, 129)),
                                  lambda: torch.nn.RMSNorm([8, 129], eps=1e-6)])
def test_module_over_several_trailing_dimensions_matches_torch(generator, make):
    """normalized_shape (8, 129): the norm of each 8 x 129 block, by the kernels on rows of 1032
    elements; PyTorch's module on the same values in float64."""
    theirs = make().cuda()
    for p in theirs.parameters():
        p.data = ref.parameter(p.numel(), torch.float32, generator,
                               p.data.mean().item()).view(p.shape)
    ours = (nt.RMSNorm if isinstance(theirs, torch.nn.RMSNorm) else nt.LayerNorm).from_torch(
        theirs)
    x = ref.activations((3, 5, 8, 129), torch.float32, generator)
    want = theirs.double()(x.double())
    assert_close("y", ours(x).flatten(-2), want.detach().flatten(-2))


# ---------------------------------------------------------------- a transformer block


class Block(torch.nn.Module):
    """Pre-norm transformer block: norm, causal attention, residual, norm, MLP, residual."""

    def __init__(self, dim, heads, norm):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = norm(dim), norm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(),
                                       torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        batch, tokens, dim = x.shape
        qkv = self.qkv(self.norm1(x)).view(batch, tokens, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attended.transpose(1, 2).reshape(batch, tokens, dim))
        return x + self.mlp(self.norm2(x))


@pytest.mark.parametrize("norm", [lambda d: torch.nn.RMSNorm(d, eps=1e-6), torch.nn.LayerNorm])
def test_transformer_block_with_normlab_norms(generator, norm, backend):
    torch.manual_seed(18)
    theirs = Block(256, 4, norm).cuda()
    with torch.no_grad():  # norms whose parameters matter
        for module in (theirs.norm1, theirs.norm2):
            for p in module.parameters():
                p.copy_(ref.parameter(256, torch.float32, generator, p.mean().item()))
    ours = copy.deepcopy(theirs)
    assert nt.replace_norms(ours) == 2
    assert isinstance(ours.norm1, (nt.RMSNorm, nt.LayerNorm))

    x = ref.activations((2, 37, 256), torch.float32, generator)
    dy = ref.activations((2, 37, 256), torch.float32, generator)
    results = []
    for block in (theirs, ours):
        leaf = x.clone().requires_grad_()
        y = block(leaf)
        y.backward(dy)
        results.append((y, leaf.grad, {n: p.grad for n, p in block.named_parameters()}))
    (want_y, want_dx, want_grads), (got_y, got_dx, got_grads) = results
    assert_close("block y", got_y, want_y.double())
    assert_close("block dx", got_dx, want_dx.double())
    assert want_grads.keys() == got_grads.keys()
    for name, want in want_grads.items():
        assert_close(f"block d{name}", got_grads[name], want.double(), rows=2 * 37)


# ---------------------------------------------------------------- CUDA graphs


def every_call(x, r, w, b, dy, leaves):
    """Each op once as a user calls it, fused adds on (x, r) in place, and a training step's
    gradients through @p leaves (x, w, b that require grad); returns every result."""
    fused = (x.clone(), r.clone()), (x.clone(), r.clone())
    nt.fused_add_rms_norm_(*fused[0], w, EPS)
    nt.fused_add_layer_norm_(*fused[1], w, b, EPS)
    xl, wl, bl = leaves
    with torch.enable_grad():
        y = nt.rms_norm(xl, wl, EPS) + nt.layer_norm(xl, wl, bl, EPS)
    gradients = torch.autograd.grad(y, leaves, dy)
    return [nt.rms_norm(x, w, EPS), nt.layer_norm(x, w, b, EPS), *fused[0], *fused[1], y.detach(),
            *gradients]


def test_graph_replays_and_compiled_calls_give_the_eager_bits(generator, backend):
    """A CUDA graph captures the same launches an eager call makes (the current stream is the
    capture's, the scratch from its pool), and torch.compile runs the same kernels: replays and
    compiled calls must give the eager calls' bits."""
    shape = (37, 1031)
    x, r, dy = (ref.activations(shape, torch.bfloat16, generator) for _ in range(3))
    w = ref.parameter(1031, torch.bfloat16, generator)
    b = ref.parameter(1031, torch.bfloat16, generator, 0.0)
    leaves = [t.clone().requires_grad_() for t in (x, w, b)]
    eager = every_call(x, r, w, b, dy, leaves)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the default stream, as capture asks
        every_call(x, r, w, b, dy, leaves)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = every_call(x, r, w, b, dy, leaves)
    for _ in range(2):
        graph.replay()
        torch.cuda.synchronize()
        for index, (got, want) in enumerate(zip(captured, eager)):
            assert torch.equal(got, want), f"replayed result {index} differs from the eager call's"

    compiled = torch.compile(lambda x, w, b: (nt.rms_norm(x, w, EPS), nt.layer_norm(x, w, b, EPS)),
                             fullgraph=True)
    for got, want in zip(compiled(x, w, b), eager[:2]):
        assert torch.equal(got, want), "a compiled call differs from the eager one"


def test_scratch_hints_are_only_hints(generator, monkeypatch):
    """A layout that needs scratch (a few wide fp32 rows: chapter 10's, forward and backward)
    passes the remembered amount on later calls; a remembered amount too short is answered as
    the first call was, never run short. The ctypes path's hints, which Python can see."""
    monkeypatch.setattr(nt.ops, "_extension", None)
    library = nt.ops._library
    x = ref.activations((2, 16384), torch.float32, generator)
    w = ref.parameter(16384, torch.float32, generator)
    want = ref.rms_norm(x, w, EPS)
    assert_close("first call", nt.rms_norm(x, w, EPS), want)
    layouts = [key for key in library._scratch_hints if key[-2:] == (2, 16384)]
    assert layouts, "the scratch the first call needed was not remembered"
    assert_close("second call", nt.rms_norm(x, w, EPS), want)
    for key in layouts:
        library._scratch_hints[key] = 256  # far too short
    assert_close("call with a short hint", nt.rms_norm(x, w, EPS), want)
    assert all(library._scratch_hints[key] > 256 for key in layouts)
