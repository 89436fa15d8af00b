// SPDX-License-Identifier: Apache-2.0
/// @file kernel.hpp
/// @brief What a registered kernel is: the type-erased call it receives, what it declares it
/// can take, and its entry. The list of entries lives with the chapters (chapters/registry.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "normlab/dtype.hpp"
#include "normlab/ops.hpp"

namespace normlab {

struct Case;  // runner.hpp

/// Type-erased arguments of one call. Pointers are device pointers, strides are in elements.
/// Each op reads the fields it needs and ignores the rest.
struct NormCall {
  Op op = Op::rmsnorm;
  DType dtype = DType::f32;         ///< x, residual, y, residual_out, dy, dx, dresidual
  DType weight_dtype = DType::f32;  ///< weight, bias, dweight, dbias
  /// Backward ops: dy's dtype when it differs from dtype (autocast); unset: dtype. Read exactly:
  /// a kernel never rounds it to a narrower dtype.
  std::optional<DType> dy_dtype = std::nullopt;
  /// Add + norm ops: the dtype of residual and residual_out when it differs from dtype: fp32
  /// with fp16 / bf16 x (Capabilities::fp32_residual); unset: dtype.
  std::optional<DType> residual_dtype = std::nullopt;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  float eps = 1e-5f;

  // Forward.
  const void* x = nullptr;
  std::int64_t x_stride = 0;
  /// The norms and their backward: x's rows in two levels (a head view, [tokens, heads,
  /// head_dim] sliced from a fused projection, whose token stride is not heads x head_dim):
  /// groups of x_group_rows rows x_stride apart, the groups x_group_stride apart, so that row r
  /// starts at (r / x_group_rows) * x_group_stride + (r % x_group_rows) * x_stride
  /// (Capabilities::two_level_rows). 0 or 1: one level. Every other tensor has one stride.
  std::int64_t x_group_rows = 0;
  std::int64_t x_group_stride = 0;
  const void* residual = nullptr;  ///< add + norm: the residual r
  std::int64_t residual_stride = 0;
  void* y = nullptr;
  std::int64_t y_stride = 0;
  void* residual_out = nullptr;  ///< add + norm: h = x + r (may equal residual: in place)
  std::int64_t residual_out_stride = 0;

  const void* weight = nullptr;  ///< cols elements, or null for none
  const void* bias = nullptr;    ///< cols elements, or null for none (RMSNorm too: + b)
  bool weight_plus_one = false;  ///< scale by (1 + w) (Gemma-style)

  float* mean = nullptr;  ///< optional output: per-row mean (LayerNorm)
  float* rstd = nullptr;  ///< optional output: per-row 1 / sqrt(variance or mean square + eps)

  // Backward (the *_backward ops). x, weight and weight_plus_one are read as in the forward.
  const void* dy = nullptr;  ///< gradient of y
  std::int64_t dy_stride = 0;
  const void* dresidual = nullptr;    ///< optional: gradient reaching h through residual_out,
  std::int64_t dresidual_stride = 0;  ///< added into dx (fused add + norm backward)
  void* dx = nullptr;                 ///< gradient of x (for add + norm also of the residual)
  std::int64_t dx_stride = 0;
  void* dweight = nullptr;  ///< cols elements in weight_dtype, or null when there is no weight
  void* dbias = nullptr;    ///< cols elements in weight_dtype, or null when there is no bias
  const float* saved_mean = nullptr;  ///< per-row mean saved by the forward (LayerNorm)
  const float* saved_rstd = nullptr;  ///< per-row rstd saved by the forward

  void* scratch = nullptr;  ///< KernelEntry::scratch_bytes bytes, 256-byte aligned, unset
  std::size_t scratch_bytes = 0;
};

/// Enqueues one call on a stream; validates the arguments and checks the launch.
using Launcher = std::function<void(const NormCall&, cudaStream_t)>;

/// Everything a kernel can take. The harness refuses a case outside it by name instead of
/// running it (KernelEntry::refusal).
struct Capabilities {
  std::vector<DType> dtypes{DType::f32};  ///< dtypes of x (and every activation)
  bool fp32_parameters = false;           ///< fp32 weight and bias with fp16 / bf16 activations
  /// fp16 / bf16 weight and bias (and their gradients) with fp32 activations, read exactly
  /// (widened to fp32) and the gradients rounded to them once.
  bool narrow_parameters = false;
  bool rmsnorm_bias = false;    ///< a bias with RMSNorm's ops (y = x * rstd * w + b; dbias)
  bool other_dy_dtype = false;  ///< backward: dy in any of the dtypes, whatever x's
  /// Add + norm: an fp32 residual stream (residual and residual_out) with fp16 / bf16 x and y:
  /// h = x + residual in fp32, stored as it is, its statistics taken, y rounded to x's dtype.
  bool fp32_residual = false;
  bool optional_parameters = false;  ///< a null weight (and bias)
  bool weight_plus_one = false;      ///< scales by (1 + w)
  bool in_place = false;             ///< y may alias x (add + norm: residual_out the residual)
  bool strided = true;               ///< row strides other than cols
  /// x's rows in two levels (NormCall::x_group_rows), for the norms and their backward; add +
  /// norm reads x one stride a row whatever a kernel declares.
  bool two_level_rows = false;
  /// Bytes every pointer and row start must be aligned to, a power of two; 0 means the element
  /// size (the kernel checks alignment and falls back to narrower accesses itself).
  int alignment_bytes = 0;
  std::int64_t max_cols = 0;  ///< widest row; 0 for any
  /// Widest row in bytes of its dtype (cols x element size), for a kernel whose limit is storage,
  /// not columns; 0 for any. A backward call whose dy is in another dtype than x runs its row
  /// widened to fp32 (other_dy_dtype), so its row counts as fp32.
  std::int64_t max_row_bytes = 0;
  /// Widest row in bytes of its dtype when the call's rows are off the 16-byte grid (a base
  /// address or row stride not a multiple of 16 bytes, or a row not a whole number of 16 bytes),
  /// for a kernel that holds such rows in fewer bytes than aligned ones; 0: max_row_bytes alone.
  std::int64_t max_off_grid_row_bytes = 0;
  /// Rows of a whole number of 16-byte chunks only (cols x element size a multiple of 16), for a
  /// kernel that moves rows in whole chunks and has no element-by-element edge.
  bool whole_chunks_only = false;
  std::int64_t max_rows = 0;       ///< most rows; 0 for any
  bool writes_statistics = false;  ///< fills NormCall::mean / rstd when they are given
  bool residual_gradient = false;  ///< backward: adds NormCall::dresidual into dx
  /// Oldest GPU it runs on, e.g. 90 for a kernel using thread-block clusters; 0 for any GPU
  /// normlab builds for (sm_75 and newer). Older GPUs refuse it with that reason.
  int min_compute_capability = 0;
};

/// What one call asks of a kernel, however the call is described: the harness derives it from a
/// Case (runner.hpp: requirements_of), the dispatcher from a NormCall's pointers and strides
/// (api/); KernelEntry::refusal judges it against Capabilities.
struct Requirements {
  Op op = Op::rmsnorm;
  Shape shape;  ///< rows, cols, dtypes, and whether a weight and a bias are given
  bool weight_plus_one = false;
  bool in_place = false;  ///< an output over its input: y over x (add + norm: residual_out over
                          ///< residual; backward: dx over dy)
  bool strided = false;   ///< some activation's row stride is not cols
  bool two_level_rows = false;  ///< x's rows in groups (NormCall::x_group_rows > 1)
  /// Powers of two, at most kMostAlignment: every activation's base address, and every
  /// activation's row stride in bytes (x's group stride too), is a multiple of them
  /// (Capabilities::alignment_bytes).
  int base_alignment = kMostAlignment;
  int pitch_alignment = kMostAlignment;
  bool statistics = false;         ///< per-row mean / rstd asked for (forward ops)
  bool residual_gradient = false;  ///< dresidual given (backward ops)
  /// The GPU's compute capability (90 for sm_90); 0: the current device's, asked only of a
  /// kernel that declares a minimum.
  int compute_capability = 0;

  static constexpr int kMostAlignment = 256;  ///< what cudaMalloc guarantees
};

/// The largest power of two that divides @p bytes, at most Requirements::kMostAlignment (which
/// is also the answer for 0).
int alignment_of(std::uint64_t bytes);

/// One registered kernel.
struct KernelEntry {
  std::string name;     ///< unique, e.g. "ch04_rmsnorm_fused_float4"
  int chapter = 0;      ///< the chapter that teaches it
  std::string summary;  ///< what it does, in a few words
  Op op = Op::rmsnorm;
  Capabilities can;
  Launcher launch;
  /// Scratch bytes a call on a rows x cols shape needs (NormCall::scratch); empty for none.
  std::function<std::size_t(const Shape&)> scratch_bytes;
  /// What this kernel cannot do on the GPU at hand that Capabilities cannot say, because it
  /// depends on the GPU's size: a reason, or empty. Asked last, for the current GPU only (a
  /// call that names no compute capability) and only when there is one. Chapter 10's
  /// whole-GPU kernels: a row wider than every SM holds at once. Empty function for none.
  std::function<std::string(const Requirements&)> gpu_refusal;
  bool baseline = false;        ///< the eager baseline speed-ups are measured against
  bool default_for_op = false;  ///< the kernel `normlab check` uses for its op

  /// Empty when this kernel can run a call asking @p needs; otherwise what it lacks, in words
  /// ("no (1 + w)", "not in place", "needs 16-byte alignment", ...).
  std::string refusal(const Requirements& needs) const;
  /// refusal(requirements_of(c)) (runner.hpp).
  std::string refusal(const Case& c) const;
  bool supports(const Case& c) const { return refusal(c).empty(); }
};

}  // namespace normlab
