// SPDX-License-Identifier: Apache-2.0
// normlab_torch._C: the eager calls of normlab_torch compiled against PyTorch. ops.py hands an
// eager call of rms_norm, layer_norm and the two fused adds here first. A call taken here gets
// ops.py's checks (the same exception types and messages), its outputs from at::empty, and one
// normlab_call launched through the C ABI (libnormlab_capi.so, found beside this module) on
// the current stream; rms_norm and layer_norm that autograd records run as C++ autograd
// functions, so neither their forward nor their backward comes back into Python. A call whose
// x is a tensor subclass (a fake tensor: the custom ops' fake implementations take it), or
// whose parameters have several dimensions (normalized_shape), comes back as None: ops.py
// takes it on its own paths.
//
// Meta tensors are taken too (checks and outputs, no launch), so that these checks run on a
// machine without a GPU. Only the CPU parts of PyTorch are linked (c10, torch, torch_cpu,
// torch_python): the current CUDA device and stream come through c10's device guard interface,
// which PyTorch's CUDA library fills in when it loads, so this builds against a PyTorch
// without CUDA as well.
#include <ATen/ATen.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/version.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "normlab_capi.h"

namespace {

namespace py = pybind11;
using at::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// eps of the backward calls (ops.py's _BACKWARD_EPS): the saved rstd already holds the
// forward's.
constexpr double backward_eps = 1e-5;
// Bytes of a refusal's message kept (capi.py's ERROR_CAPACITY).
constexpr std::size_t error_capacity = 1024;

[[noreturn]] void value_error(const std::string& message) {
  C10_THROW_ERROR(ValueError, message);
}

[[noreturn]] void type_error(const std::string& message) {
  C10_THROW_ERROR(TypeError, message);
}

// ---------------------------------------------------------------- what messages print

// As Python prints a tuple of ints: (2, 3), (4,), ().
std::string tuple_text(c10::IntArrayRef values) {
  std::string text = "(";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (values.size() == 1 ? ",)" : ")");
}

// As Python prints a dtype: torch.float32.
std::string dtype_text(at::ScalarType type) {
  return std::string("torch.") + torch::getTHPDtype(type)->name;
}

// ---------------------------------------------------------------- checks (ops.py's, in order)

// enum normlab_dtype of a tensor dtype; -1 where normlab takes none.
int32_t normlab_dtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return NORMLAB_DTYPE_F32;
    case at::kHalf:
      return NORMLAB_DTYPE_F16;
    case at::kBFloat16:
      return NORMLAB_DTYPE_BF16;
    default:
      return -1;
  }
}

// ops.py's _check_activation: a float tensor of at least one dimension on a CUDA device (meta
// too); with @p x given, on x's device with x's shape, and x's dtype unless @p any_dtype (dy:
// read exactly in whichever dtype it comes) or, for @p stream (a fused add's residual), float32
// with 16-bit x (the residual stream kept in float32).
void check_activation(const char* name, const Tensor& tensor, const Tensor* x = nullptr,
                      bool any_dtype = false, bool stream = false) {
  const std::string named(name);
  if (normlab_dtype(tensor.scalar_type()) < 0)
    type_error(named + " has dtype " + dtype_text(tensor.scalar_type()) +
               "; normlab takes float32, float16 or bfloat16");
  if (!tensor.is_cuda() && !tensor.is_meta()) {
    const char* seen = at::hasCUDA() ? "" : ", and PyTorch sees no CUDA GPU here";
    value_error(named + " is on " + tensor.device().str() + "; normlab runs on CUDA tensors" +
                seen);
  }
  if (tensor.dim() == 0) value_error(named + " is a scalar; the norm is over its last dimension");
  if (x == nullptr) return;
  if (tensor.device() != x->device())
    value_error(named + " is on " + tensor.device().str() + " and x on " + x->device().str());
  const bool fp32_stream = stream && tensor.scalar_type() == at::kFloat;
  if (tensor.scalar_type() != x->scalar_type() && !any_dtype && !fp32_stream)
    type_error(
        named + " has dtype " + dtype_text(tensor.scalar_type()) + " and x " +
        dtype_text(x->scalar_type()) + "; they must match" +
        (stream ? " (or " + named + " be torch.float32, the residual stream in float32)" : ""));
  if (tensor.sizes() != x->sizes())
    value_error(named + " has shape " + tuple_text(tensor.sizes()) + " and x " +
                tuple_text(x->sizes()) + "; they must match");
}

// ops.py's _parameter_dtype_ok: parameters as wide as x or wider: x's dtype or float32, or any
// of normlab's with float32 x (read exactly as float32).
bool parameter_type_ok(at::ScalarType type, at::ScalarType x_type) {
  return type == x_type || type == at::kFloat || (x_type == at::kFloat && normlab_dtype(type) >= 0);
}

// ops.py's _check_parameter: none, or one contiguous value per column of x in a dtype
// parameter_type_ok takes, on x's device.
void check_parameter(const char* name, const Tensor* parameter, const Tensor& x) {
  if (parameter == nullptr) return;
  const std::string named(name);
  if (parameter->device() != x.device())
    value_error(named + " is on " + parameter->device().str() + " and x on " + x.device().str());
  if (!parameter_type_ok(parameter->scalar_type(), x.scalar_type()))
    type_error(named + " has dtype " + dtype_text(parameter->scalar_type()) + "; with " +
               dtype_text(x.scalar_type()) + " x it must be " + dtype_text(x.scalar_type()) +
               " or torch.float32 (any of the three with torch.float32 x)");
  const int64_t cols = x.size(-1);
  if (parameter->dim() != 1 || parameter->size(0) != cols)
    value_error(named + " has shape " + tuple_text(parameter->sizes()) +
                "; x's last dimension needs (" + std::to_string(cols) + ",)");
  if (cols > 1 && parameter->stride(0) != 1)
    value_error(named + " has stride " + std::to_string(parameter->stride(0)) +
                "; it must be contiguous");
}

// ops.py's _row_stride_or_none: the stride between consecutive rows of @p tensor seen as (rows,
// last dimension), or -1 where the leading dimensions do not collapse into one stride, the last
// has a stride other than 1, or rows overlap.
int64_t row_stride_or_none(const Tensor& tensor) {
  const int64_t cols = tensor.size(-1);
  if (tensor.is_contiguous()) return cols;
  if (cols > 1 && tensor.stride(-1) != 1) return -1;
  int64_t row_stride = cols;  // one row: any stride will do
  int64_t expected = -1;
  for (int64_t d = tensor.dim() - 2; d >= 0; --d) {
    if (tensor.size(d) == 1) continue;
    if (expected < 0) row_stride = expected = tensor.stride(d);  // the innermost leading one
    if (tensor.stride(d) != expected) return -1;
    expected = tensor.stride(d) * tensor.size(d);
  }
  return row_stride >= cols ? row_stride : -1;
}

// ops.py's _not_rows: the ValueError for @p tensor's layout, naming @p name.
[[noreturn]] void not_rows(const char* name, const Tensor& tensor) {
  const std::string named(name);
  value_error(named + " (shape " + tuple_text(tensor.sizes()) + ", strides " +
              tuple_text(tensor.strides()) +
              ") is not rows one stride apart with a unit inner stride; pass a contiguous copy (" +
              named + ".contiguous())");
}

// ops.py's _row_stride: row_stride_or_none, or a ValueError naming @p name.
int64_t row_stride(const char* name, const Tensor& tensor) {
  const int64_t stride = row_stride_or_none(tensor);
  if (stride < 0) not_rows(name, tensor);
  return stride;
}

// ops.py's _x_rows_or_none: x's rows as a norm and its backward take them, one stride apart
// (group_rows 0) or in two levels (a head view: heads rows stride apart in a token, the tokens
// group_stride apart), the leading dimensions collapsed where they can be; more_levels where
// more than two remain; stride -1 where the last dimension's stride is not 1 or a level's
// stride is below the row.
struct XRows {
  int64_t stride = -1, group_rows = 0, group_stride = 0;
  bool more_levels = false;
};

XRows x_rows_or_none(const Tensor& tensor) {
  const int64_t cols = tensor.size(-1);
  if (tensor.is_contiguous()) return {cols};
  if (cols > 1 && tensor.stride(-1) != 1) return {};
  std::array<std::array<int64_t, 2>, 3> levels{};  // {size, stride}, the innermost first
  int count = 0;
  for (int64_t d = tensor.dim() - 2; d >= 0; --d) {
    if (tensor.size(d) == 1) continue;
    if (count > 0 && tensor.stride(d) == levels[count - 1][0] * levels[count - 1][1]) {
      levels[count - 1][0] *= tensor.size(d);
      continue;
    }
    if (count == 2) return {.more_levels = true};
    levels[count++] = {tensor.size(d), tensor.stride(d)};
  }
  for (int i = 0; i < count; ++i)
    if (levels[i][1] < cols) return {};
  if (count < 2) return {count == 1 ? levels[0][1] : cols};
  return {levels[0][1], levels[0][0], levels[1][1]};
}

// ops.py's _check_norm (without out=, which ops.py keeps): every check of a forward call.
// Returns eps as a number.
double check_norm(const Tensor& x, const Tensor* weight, const Tensor* bias, py::handle eps,
                  bool gemma, const Tensor* residual = nullptr) {
  check_activation("x", x);
  if (residual != nullptr) check_activation("residual", *residual, &x, false, true);
  check_parameter("weight", weight, x);
  check_parameter("bias", bias, x);
  if (weight != nullptr && bias != nullptr && bias->scalar_type() != weight->scalar_type())
    type_error("bias has dtype " + dtype_text(bias->scalar_type()) + " and weight " +
               dtype_text(weight->scalar_type()) + "; they must match");
  if (gemma && weight == nullptr) value_error("gemma: scaling by (1 + weight) needs a weight");
  const double value = PyFloat_AsDouble(eps.ptr());
  if (value == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  if (!(value >= 0 && value < INFINITY))
    value_error("eps must be a finite number >= 0, got " + std::string(py::repr(eps)));
  if (x.numel() != 0) {
    if (residual == nullptr) {  // a norm's x: one stride, two levels, or more (copied)
      const XRows rows = x_rows_or_none(x);
      if (rows.stride < 0 && !rows.more_levels) not_rows("x", x);
    } else {
      row_stride("x", x);
      row_stride("residual", *residual);
    }
  }
  return value;
}

// ops.py's _check_disjoint, for x and residual of a fused add that has rows: a ValueError when
// they share memory, unless the rows of one sit in the gaps between the other's.
void check_disjoint(const Tensor& x, const Tensor& residual) {
  if (x.storage().data() != residual.storage().data()) return;
  const auto span = [](const Tensor& tensor) {
    const auto start = reinterpret_cast<std::intptr_t>(tensor.data_ptr());
    int64_t last = 0;
    for (int64_t d = 0; d < tensor.dim(); ++d)
      last += (tensor.size(d) - 1) * tensor.stride(d);
    return std::array<std::intptr_t, 2>{start, start + (last + 1) * tensor.element_size()};
  };
  const auto [start, end] = span(x);
  const auto [other_start, other_end] = span(residual);
  if (end <= other_start || other_end <= start) return;
  const int64_t stride = row_stride("x", x);
  if (stride == row_stride("residual", residual) && x.element_size() == residual.element_size()) {
    const int64_t row_bytes = stride * x.element_size(), used = x.size(-1) * x.element_size();
    const int64_t offset = ((other_start - start) % row_bytes + row_bytes) % row_bytes;
    if (used <= offset && offset <= row_bytes - used) return;
  }
  value_error("x and residual overlap in memory: normlab would write one while it reads the other");
}

// ops.py's _refuse_grad: the in-place fused adds have no autograd.
void refuse_grad(const char* what, const char* instead,
                 std::initializer_list<std::pair<const char*, const Tensor*>> tensors) {
  if (!at::GradMode::is_enabled()) return;
  std::string wanting;
  for (const auto& [name, tensor] : tensors)
    if (tensor != nullptr && tensor->requires_grad())
      wanting += (wanting.empty() ? "" : ", ") + std::string(name);
  if (!wanting.empty())
    TORCH_CHECK(false, "normlab_torch.", what, " is forward only and ", wanting,
                " requires grad: call it under torch.no_grad() or torch.inference_mode(), or for "
                "training call ",
                instead, ", which has autograd");
}

// ---------------------------------------------------------------- launching

// capi.py's scratch hints: the scratch bytes a layout (op, dtypes, dy's dtype where not x's,
// rows, cols) last needed, so that a repeated call passes that much at once instead of being
// told NORMLAB_SCRATCH_SHORT and planned again. A hint only: the library checks the scratch on
// every call. Backward calls run on autograd's threads, hence the lock.
class ScratchHints {
 public:
  std::size_t bytes_for(const normlab_call& call) const {
    if ((ops_with_scratch_.load(std::memory_order_relaxed) & (1u << call.op)) == 0) return 0;
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = bytes_.find(layout_of(call));
    return found == bytes_.end() ? 0 : found->second;
  }

  void remember(const normlab_call& call, std::size_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    bytes_[layout_of(call)] = bytes;
    ops_with_scratch_.fetch_or(1u << call.op, std::memory_order_relaxed);
  }

 private:
  using Layout = std::array<int64_t, 7>;
  static Layout layout_of(const normlab_call& call) {
    return {call.op,
            call.dtype,
            call.weight_dtype,
            call.dy_dtype_given ? call.dy_dtype : -1,
            call.residual_dtype_given ? call.residual_dtype : -1,
            call.rows,
            call.cols};
  }

  std::atomic<unsigned> ops_with_scratch_{0};
  mutable std::mutex mutex_;
  std::map<Layout, std::size_t> bytes_;
};

ScratchHints scratch_hints;

// capi.py's error_for: the exception for a status of normlab_plan / normlab_run.
[[noreturn]] void throw_status(int status, const char* message) {
  if (status == NORMLAB_INVALID_ARGUMENT)
    value_error(std::string("normlab refused the call: ") + message);
  if (status == NORMLAB_RUNTIME_ERROR) TORCH_CHECK(false, "normlab: ", message);
  TORCH_CHECK(false, "normlab: internal error (status ", status, "): ", message);
}

// A normlab_call of @p op over x's rows, its pointers and strides left for the caller.
normlab_call call_over(int32_t op, const Tensor& x, at::ScalarType parameter_type, bool gemma,
                       double eps) {
  normlab_call call{};
  call.op = op;
  call.dtype = normlab_dtype(x.scalar_type());
  call.weight_dtype = normlab_dtype(parameter_type);
  call.weight_plus_one = gemma;
  call.cols = x.size(-1);
  call.rows = x.numel() / call.cols;
  call.eps = static_cast<float>(eps);  // as ctypes stores a Python float into a c_float
  return call;
}

// The dtype of the parameters of a call (NormlabCall::weight_dtype): the first one present, or
// x's.
at::ScalarType parameter_type(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return weight.defined() ? weight.scalar_type()
         : bias.defined() ? bias.scalar_type()
                          : x.scalar_type();
}

const void* pointer_or_null(const Tensor& tensor) {
  return tensor.defined() ? tensor.data_ptr() : nullptr;
}

// While alive, @p device is the current CUDA device (where it was not: the plan asks the
// current one), and the one before is current again afterwards.
class CurrentDevice {
 public:
  CurrentDevice(const c10::impl::DeviceGuardImplInterface& cuda, c10::Device device)
      : cuda_(cuda), previous_(cuda.getDevice()), switched_(previous_ != device) {
    if (switched_) cuda_.setDevice(device);
  }
  ~CurrentDevice() {
    if (switched_) cuda_.uncheckedSetDevice(previous_);
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  const c10::impl::DeviceGuardImplInterface& cuda_;
  const c10::Device previous_;
  const bool switched_;
};

// ops.py's _launch: runs a filled call on the current stream of x's device (that device made
// current for the call: the plan asks the current one), with scratch from PyTorch's caching
// allocator, whose reuse is ordered on the stream, when the plan needs it.
void launch(normlab_call& call, const Tensor& x) {
  const c10::Device device = x.device();
  const c10::impl::DeviceGuardImplInterface& cuda =
      *c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
  const CurrentDevice on_device(cuda, device);
  void* stream = cuda.getStream(device).native_handle();
  Tensor scratch;
  const auto give_scratch = [&](std::size_t bytes) {
    scratch = at::empty({static_cast<int64_t>(bytes)}, x.options().dtype(at::kByte));
    call.scratch = scratch.data_ptr();
    call.scratch_bytes = bytes;
  };
  if (const std::size_t hint = scratch_hints.bytes_for(call)) give_scratch(hint);
  char error[error_capacity];
  int status = normlab_run(&call, stream, error, sizeof error);
  if (status == NORMLAB_SCRATCH_SHORT) {
    std::size_t bytes = 0;
    status = normlab_plan(&call, &bytes, nullptr, 0, error, sizeof error);
    if (status == NORMLAB_OK) {
      give_scratch(bytes);
      scratch_hints.remember(call, bytes);
      status = normlab_run(&call, stream, error, sizeof error);
    }
  }
  if (status != NORMLAB_OK) throw_status(status, error);
}

// ops.py's _like_rows (contiguous: the cheaper call here).
Tensor like_rows(const Tensor& x) {
  return at::empty(x.sizes(), x.options());
}

// ops.py's _per_row: a float32 statistic per row.
Tensor per_row(const Tensor& x) {
  return at::empty(x.sizes().slice(0, x.dim() - 1), x.options().dtype(at::kFloat));
}

// ops.py's _rows_of: @p tensor when its rows have one stride, else a contiguous copy.
Tensor rows_of(const Tensor& tensor) {
  return row_stride_or_none(tensor) >= 0 ? tensor : tensor.contiguous();
}

// A gradient for a parameter, undefined where there is none (autograd wants no gradient then,
// and an empty tensor would cost an allocation on every step); unset (the kernel writes every
// element when x has rows; zeroed below when it has none).
Tensor parameter_gradient(const Tensor& parameter, at::ScalarType type, const Tensor& x) {
  return parameter.defined() ? at::empty({x.size(-1)}, x.options().dtype(type)) : Tensor();
}

// ops.py's _x_rows: x of a norm or its backward into @p call, its rows one stride apart or in
// two levels; where they have more, a contiguous copy, which @p copy keeps until the launch.
void put_x(normlab_call& call, const Tensor& x, Tensor& copy) {
  const XRows rows = x_rows_or_none(x);
  if (rows.more_levels) {
    copy = x.contiguous();
    call.x = copy.data_ptr();
    call.x_stride = call.cols;
    return;
  }
  if (rows.stride < 0) not_rows("x", x);
  call.x = x.data_ptr();
  call.x_stride = rows.stride;
  call.x_group_rows = rows.group_rows;
  call.x_group_stride = rows.group_stride;
}

// The forward of an RMSNorm or LayerNorm (@p op) of x into y, with the statistics where given
// (defined), the parameters where present.
void run_forward(int32_t op, const Tensor& x, const Tensor& y, const Tensor& weight,
                 const Tensor& bias, double eps, bool gemma, const Tensor& mean,
                 const Tensor& rstd) {
  if (!x.is_cuda()) return;  // meta: no memory, nothing to launch
  normlab_call call = call_over(op, x, parameter_type(x, weight, bias), gemma, eps);
  Tensor copy;
  put_x(call, x, copy);
  call.y = y.data_ptr();
  call.y_stride = call.cols;
  call.weight = pointer_or_null(weight);
  call.bias = pointer_or_null(bias);
  call.mean = mean.defined() ? mean.data_ptr<float>() : nullptr;
  call.rstd = rstd.defined() ? rstd.data_ptr<float>() : nullptr;
  launch(call, x);
}

// The backward of an RMSNorm or LayerNorm (@p op): dx and the gradients of the parameters
// present, from dy (in any of normlab's dtypes, passed as dy_dtype where not x's), x and the
// forward's statistics.
void run_backward(int32_t op, const Tensor& dy, const Tensor& x, const Tensor& dx,
                  const Tensor& weight, const Tensor& bias, const Tensor& dweight,
                  const Tensor& dbias, const Tensor& mean, const Tensor& rstd, bool gemma) {
  if (!x.is_cuda()) return;
  normlab_call call = call_over(op, x, parameter_type(x, weight, bias), gemma, backward_eps);
  if (dy.scalar_type() != x.scalar_type()) {  // C ABI version 2: dy read in its own dtype
    call.dy_dtype_given = 1;
    call.dy_dtype = normlab_dtype(dy.scalar_type());
  }
  call.dy = dy.data_ptr();
  call.dy_stride = row_stride("dy", dy);
  Tensor copy;
  put_x(call, x, copy);
  call.dx = dx.data_ptr();
  call.dx_stride = call.cols;
  call.weight = pointer_or_null(weight);
  call.dweight = dweight.defined() ? dweight.data_ptr() : nullptr;
  call.dbias = dbias.defined() ? dbias.data_ptr() : nullptr;
  call.saved_mean = mean.defined() ? mean.data_ptr<float>() : nullptr;
  call.saved_rstd = rstd.data_ptr<float>();
  launch(call, x);
}

// ---------------------------------------------------------------- autograd

// ops.py's _backward_outputs: dy checked against x (any of normlab's dtypes), dx in x's dtype
// and the parameters' gradients in theirs (empty for absent ones).
struct BackwardOutputs {
  Tensor dx, dweight, dbias;
};

BackwardOutputs backward_outputs(const Tensor& dy, const Tensor& x, const Tensor& weight,
                                 const Tensor& bias) {
  check_activation("dy", dy, &x, /*any_dtype=*/true);
  const at::ScalarType type = parameter_type(x, weight, bias);
  return {like_rows(x), parameter_gradient(weight, type, x), parameter_gradient(bias, type, x)};
}

// rms_norm that autograd records: ops.py's _EagerRMSNorm (the op's forward and backward
// bodies) without Python. An absent parameter is an empty optional, which autograd takes for
// no input (an undefined tensor it would take for one).
struct RMSNormFunction : public torch::autograd::Function<RMSNormFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x,
                        const std::optional<Tensor>& weight_or_none,
                        const std::optional<Tensor>& bias_or_none, double eps, bool gemma) {
    const Tensor weight = weight_or_none.value_or(Tensor());
    const Tensor bias = bias_or_none.value_or(Tensor());
    const Tensor y = like_rows(x), rstd = per_row(x);
    if (x.numel() != 0) run_forward(NORMLAB_OP_RMSNORM, x, y, weight, bias, eps, gemma, {}, rstd);
    ctx->save_for_backward({x, weight, bias, rstd});
    ctx->saved_data["gemma"] = gemma;
    return y;
  }

  // The bias is not read, only whether there is one (its gradient: dy's column sums).
  static variable_list backward(AutogradContext* ctx, variable_list gradients) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &weight = saved[1], &bias = saved[2], &rstd = saved[3];
    const bool gemma = ctx->saved_data["gemma"].toBool();
    const Tensor dy = rows_of(gradients[0]);
    const auto [dx, dweight, dbias] = backward_outputs(dy, x, weight, bias);
    if (x.numel() != 0) {
      run_backward(NORMLAB_OP_RMSNORM_BACKWARD, dy, x, dx, weight, bias, dweight, dbias, {}, rstd,
                   gemma);
    } else {
      if (dweight.defined()) dweight.zero_();
      if (dbias.defined()) dbias.zero_();
    }
    return {dx, dweight, dbias, Tensor(), Tensor()};
  }
};

// layer_norm that autograd records: ops.py's _EagerLayerNorm without Python.
struct LayerNormFunction : public torch::autograd::Function<LayerNormFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x,
                        const std::optional<Tensor>& weight_or_none,
                        const std::optional<Tensor>& bias_or_none, double eps) {
    const Tensor weight = weight_or_none.value_or(Tensor());
    const Tensor bias = bias_or_none.value_or(Tensor());
    const Tensor y = like_rows(x), mean = per_row(x), rstd = per_row(x);
    if (x.numel() != 0)
      run_forward(NORMLAB_OP_LAYERNORM, x, y, weight, bias, eps, false, mean, rstd);
    ctx->save_for_backward({x, weight, bias, mean, rstd});
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list gradients) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &weight = saved[1], &bias = saved[2], &mean = saved[3],
                 &rstd = saved[4];
    const Tensor dy = rows_of(gradients[0]);
    const auto [dx, dweight, dbias] = backward_outputs(dy, x, weight, bias);
    if (x.numel() != 0) {
      run_backward(NORMLAB_OP_LAYERNORM_BACKWARD, dy, x, dx, weight, bias, dweight, dbias, mean,
                   rstd, false);
    } else {
      if (dweight.defined()) dweight.zero_();
      if (dbias.defined()) dbias.zero_();
    }
    return {dx, dweight, dbias, Tensor()};
  }
};

// ---------------------------------------------------------------- the calls from ops.py

// The tensor of @p object when it is a torch.Tensor or torch.nn.Parameter, not a subclass;
// null otherwise.
const Tensor* exact_tensor(py::handle object) {
  return THPVariable_CheckExact(object.ptr()) ? &THPVariable_Unpack(object.ptr()) : nullptr;
}

// A parameter as ops.py's paths take it here: None (null in @p parameter), or a tensor of at
// most one dimension. False for anything else, which ops.py takes.
bool vector_or_none(py::handle object, const Tensor** parameter) {
  *parameter = nullptr;
  if (object.is_none()) return true;
  *parameter = exact_tensor(object);
  return *parameter != nullptr && (*parameter)->dim() <= 1;
}

bool records_grad(std::initializer_list<const Tensor*> tensors) {
  if (!at::GradMode::is_enabled()) return false;
  for (const Tensor* tensor : tensors)
    if (tensor != nullptr && tensor->requires_grad()) return true;
  return false;
}

Tensor or_undefined(const Tensor* tensor) {
  return tensor != nullptr ? *tensor : Tensor();
}

std::optional<Tensor> or_none(const Tensor* tensor) {
  return tensor != nullptr ? std::optional<Tensor>(*tensor) : std::nullopt;
}

py::object wrap(Tensor tensor) {
  return py::reinterpret_steal<py::object>(THPVariable_Wrap(std::move(tensor)));
}

bool truth(py::handle object) {
  const int value = PyObject_IsTrue(object.ptr());
  if (value < 0) throw py::error_already_set();
  return value != 0;
}

py::object rms_norm(py::handle x_object, py::handle weight_object, py::handle bias_object,
                    py::handle eps, py::handle gemma_object) {
  const Tensor* x = exact_tensor(x_object);
  const Tensor *weight, *bias;
  if (x == nullptr || !vector_or_none(weight_object, &weight) ||
      !vector_or_none(bias_object, &bias))
    return py::none();
  const bool gemma = truth(gemma_object);
  const double eps_value = check_norm(*x, weight, bias, eps, gemma);
  if (records_grad({x, weight, bias}))
    return wrap(RMSNormFunction::apply(*x, or_none(weight), or_none(bias), eps_value, gemma));
  const Tensor y = like_rows(*x);  // no statistics: nothing will ask for them
  if (x->numel() != 0)
    run_forward(NORMLAB_OP_RMSNORM, *x, y, or_undefined(weight), or_undefined(bias), eps_value,
                gemma, {}, {});
  return wrap(y);
}

py::object layer_norm(py::handle x_object, py::handle weight_object, py::handle bias_object,
                      py::handle eps) {
  const Tensor* x = exact_tensor(x_object);
  const Tensor *weight, *bias;
  if (x == nullptr || !vector_or_none(weight_object, &weight) ||
      !vector_or_none(bias_object, &bias))
    return py::none();
  const double eps_value = check_norm(*x, weight, bias, eps, false);
  if (records_grad({x, weight, bias}))
    return wrap(LayerNormFunction::apply(*x, or_none(weight), or_none(bias), eps_value));
  const Tensor y = like_rows(*x);
  if (x->numel() != 0)
    run_forward(NORMLAB_OP_LAYERNORM, *x, y, or_undefined(weight), or_undefined(bias), eps_value,
                false, {}, {});
  return wrap(y);
}

// A fused add in place: residual <- x + residual, x <- the norm of it (@p op).
void run_fused(int32_t op, const Tensor& x, const Tensor& residual, const Tensor& weight,
               const Tensor& bias, double eps, bool gemma) {
  if (x.numel() == 0 || !x.is_cuda()) return;
  check_disjoint(x, residual);
  normlab_call call = call_over(op, x, parameter_type(x, weight, bias), gemma, eps);
  call.x = call.y = x.data_ptr();
  call.x_stride = call.y_stride = row_stride("x", x);
  call.residual = call.residual_out = residual.data_ptr();
  call.residual_stride = call.residual_out_stride = row_stride("residual", residual);
  if (residual.scalar_type() != x.scalar_type()) {
    call.residual_dtype_given = 1;
    call.residual_dtype = normlab_dtype(residual.scalar_type());
  }
  call.weight = pointer_or_null(weight);
  call.bias = pointer_or_null(bias);
  launch(call, x);
}

py::object fused_add_rms_norm_(py::handle x_object, py::handle residual_object,
                               py::handle weight_object, py::handle eps, py::handle gemma_object) {
  const Tensor* x = exact_tensor(x_object);
  const Tensor* residual = exact_tensor(residual_object);
  const Tensor* weight;
  if (x == nullptr || residual == nullptr || !vector_or_none(weight_object, &weight))
    return py::none();
  refuse_grad("fused_add_rms_norm_", "fused_add_rms_norm(x, residual, weight, eps)",
              {{"x", x}, {"residual", residual}, {"weight", weight}});
  const bool gemma = truth(gemma_object);
  const double eps_value = check_norm(*x, weight, nullptr, eps, gemma, residual);
  run_fused(NORMLAB_OP_ADD_RMSNORM, *x, *residual, or_undefined(weight), {}, eps_value, gemma);
  return py::make_tuple(x_object, residual_object);
}

py::object fused_add_layer_norm_(py::handle x_object, py::handle residual_object,
                                 py::handle weight_object, py::handle bias_object, py::handle eps) {
  const Tensor* x = exact_tensor(x_object);
  const Tensor* residual = exact_tensor(residual_object);
  const Tensor *weight, *bias;
  if (x == nullptr || residual == nullptr || !vector_or_none(weight_object, &weight) ||
      !vector_or_none(bias_object, &bias))
    return py::none();
  refuse_grad("fused_add_layer_norm_", "fused_add_layer_norm(x, residual, weight, bias, eps)",
              {{"x", x}, {"residual", residual}, {"weight", weight}, {"bias", bias}});
  const double eps_value = check_norm(*x, weight, bias, eps, false, residual);
  run_fused(NORMLAB_OP_ADD_LAYERNORM, *x, *residual, or_undefined(weight), or_undefined(bias),
            eps_value, false);
  return py::make_tuple(x_object, residual_object);
}

}  // namespace

PYBIND11_MODULE(_C, module) {
  if (normlab_capi_abi_version() != NORMLAB_CAPI_ABI_VERSION)
    throw py::import_error("normlab_torch._C was built for C ABI version " +
                           std::to_string(NORMLAB_CAPI_ABI_VERSION) +
                           "; the library it loaded has " +
                           std::to_string(normlab_capi_abi_version()) + ": rebuild both");
  // c10's ValueError and TypeError become Python's, as PyTorch's own functions raise them.
  py::register_local_exception_translator(
      [](std::exception_ptr error) { torch::translate_exception_to_python(error); });
  module.doc() = "normlab_torch's eager calls compiled against PyTorch (see ops.py)";
  module.attr("torch_version") = TORCH_VERSION;
  module.def("rms_norm", &rms_norm,
             "ops.rms_norm without out= or normalized_shape, its bias positional (x, weight, "
             "bias, eps, gemma): y, or None where ops.py takes the call (a tensor subclass, "
             "parameters of several dimensions)");
  module.def("layer_norm", &layer_norm, "ops.layer_norm as rms_norm: y, or None");
  module.def("fused_add_rms_norm_", &fused_add_rms_norm_,
             "ops.fused_add_rms_norm_: (x, residual), or None as rms_norm");
  module.def("fused_add_layer_norm_", &fused_add_layer_norm_,
             "ops.fused_add_layer_norm_: (x, residual), or None as rms_norm");
}
