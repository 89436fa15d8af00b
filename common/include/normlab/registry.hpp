/// @file registry.hpp
/// @brief The kernel registry: the one list that tour, tests and benchmarks iterate over.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "normlab/dtype.hpp"
#include "normlab/ops.hpp"

namespace normlab {

/// Type-erased arguments of one call. Pointers are device pointers, strides are in elements.
/// Each op reads the fields it needs and ignores the rest.
struct NormCall {
  Op op = Op::rmsnorm;
  DType dtype = DType::f32;         ///< x, residual, y, residual_out
  DType weight_dtype = DType::f32;  ///< weight, bias
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  float eps = 1e-5f;

  const void* x = nullptr;
  std::int64_t x_stride = 0;
  const void* residual = nullptr;  ///< add + norm: the residual r
  std::int64_t residual_stride = 0;
  void* y = nullptr;
  std::int64_t y_stride = 0;
  void* residual_out = nullptr;  ///< add + norm: h = x + r (may equal residual: in place)
  std::int64_t residual_out_stride = 0;

  const void* weight = nullptr;  ///< cols elements, or null for none
  const void* bias = nullptr;    ///< cols elements, or null for none
  bool weight_plus_one = false;  ///< scale by (1 + w) (Gemma-style)

  float* mean = nullptr;  ///< optional output: per-row mean (LayerNorm)
  float* rstd = nullptr;  ///< optional output: per-row 1 / sqrt(variance or mean square + eps)
};

/// Enqueues one call on a stream; validates the arguments and checks the launch.
using Launcher = std::function<void(const NormCall&, cudaStream_t)>;

/// One registered kernel.
struct KernelEntry {
  std::string name;     ///< unique, e.g. "ch04_rmsnorm_float4"
  int chapter = 0;      ///< the chapter that teaches it
  std::string summary;  ///< what it does, in a few words
  Op op = Op::rmsnorm;
  std::vector<DType> dtypes{DType::f32};
  Launcher launch;
  std::int64_t max_cols = 0;         ///< widest row it handles; 0 for any
  bool optional_parameters = false;  ///< accepts a null weight (and bias)
  bool fp32_parameters = false;      ///< accepts fp32 weight and bias with fp16/bf16 inputs
  bool writes_statistics = false;    ///< fills NormCall::mean / rstd when they are given
  bool baseline = false;             ///< the eager baseline that speed-ups are measured against
  /// Bytes counted for GB/s; empty means bytes_moved(op, shape).
  std::function<double(const Shape&)> bytes_model;

  double bytes(const Shape& shape) const;
  /// Whether this kernel can run @p shape (dtypes, width, parameters).
  bool supports(const Shape& shape) const;
};

/// Every registered kernel in chapter order. Defined in chapters/registry.cpp (library
/// normlab_kernels): adding a chapter adds its kernels there.
const std::vector<KernelEntry>& kernel_registry();
/// The registered kernel called @p name, or nullptr. Defined beside kernel_registry().
const KernelEntry* find_kernel(std::string_view name);

}  // namespace normlab
