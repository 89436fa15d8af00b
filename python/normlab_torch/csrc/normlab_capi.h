// SPDX-License-Identifier: Apache-2.0
/// @file normlab_capi.h
/// @brief normlab's dispatcher (normlab/normlab.hpp) behind a plain C ABI, for callers that
/// cannot link C++: python/normlab_torch loads libnormlab_capi.so with ctypes. No C++ type and
/// no exception crosses this boundary; every function returns a status and writes the error's
/// message into the caller's buffer.
#ifndef NORMLAB_CAPI_H
#define NORMLAB_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NORMLAB_CAPI_EXPORT __attribute__((visibility("default")))

/// Raised when normlab_call changes layout: a caller built against another layout must refuse.
#define NORMLAB_CAPI_ABI_VERSION 4

/// normlab::Op, value for value.
enum normlab_op {
  NORMLAB_OP_COPY = 0,
  NORMLAB_OP_RMSNORM = 1,
  NORMLAB_OP_LAYERNORM = 2,
  NORMLAB_OP_ADD_RMSNORM = 3,
  NORMLAB_OP_ADD_LAYERNORM = 4,
  NORMLAB_OP_RMSNORM_BACKWARD = 5,
  NORMLAB_OP_LAYERNORM_BACKWARD = 6,
};

/// normlab::DType, value for value.
enum normlab_dtype {
  NORMLAB_DTYPE_F32 = 0,
  NORMLAB_DTYPE_F16 = 1,
  NORMLAB_DTYPE_BF16 = 2,
};

/// What a call returned.
enum normlab_status {
  NORMLAB_OK = 0,
  NORMLAB_INVALID_ARGUMENT = 1,  ///< std::invalid_argument: a bad call or no kernel takes it
  NORMLAB_RUNTIME_ERROR = 2,     ///< std::runtime_error: a CUDA error (after a launch)
  NORMLAB_SCRATCH_SHORT = 3,     ///< normlab_run: scratch_bytes below what normlab_plan says
  NORMLAB_INTERNAL_ERROR = 4,    ///< any other exception
};

/// normlab::NormCall field for field (common/include/normlab/kernel.hpp says what each is), with
/// the enums and flags as int32_t so that the layout does not depend on the compiler.
/// Pointers are device pointers; strides are in elements.
typedef struct normlab_call {
  int32_t op;               ///< enum normlab_op
  int32_t dtype;            ///< enum normlab_dtype: x, residual, y, residual_out, dy, dresidual, dx
  int32_t weight_dtype;     ///< enum normlab_dtype: weight, bias, dweight, dbias
  int32_t weight_plus_one;  ///< nonzero: scale by (1 + w)
  int64_t rows;
  int64_t cols;
  float eps;

  const void* x;
  int64_t x_stride;
  const void* residual;
  int64_t residual_stride;
  void* y;
  int64_t y_stride;
  void* residual_out;
  int64_t residual_out_stride;

  const void* weight;
  const void* bias;

  float* mean;
  float* rstd;

  const void* dy;
  int64_t dy_stride;
  const void* dresidual;
  int64_t dresidual_stride;
  void* dx;
  int64_t dx_stride;
  void* dweight;
  void* dbias;
  const float* saved_mean;
  const float* saved_rstd;

  void* scratch;
  size_t scratch_bytes;

  /// Backward ops: nonzero when dy is in dy_dtype (enum normlab_dtype) rather than in dtype, as
  /// under autocast; a zeroed call keeps dy in dtype.
  int32_t dy_dtype_given;
  int32_t dy_dtype;
  /// Add + norm ops: nonzero when residual and residual_out are in residual_dtype (enum
  /// normlab_dtype; fp32 with fp16 or bf16 x) rather than in dtype; a zeroed call keeps dtype.
  int32_t residual_dtype_given;
  int32_t residual_dtype;
  /// The norms and their backward: x's rows in two levels (a head view), groups of
  /// x_group_rows rows x_stride apart, the groups x_group_stride apart; a zeroed call (0, or 1)
  /// keeps one level.
  int64_t x_group_rows;
  int64_t x_group_stride;
} normlab_call;

/// NORMLAB_CAPI_ABI_VERSION of the library.
NORMLAB_CAPI_EXPORT int normlab_capi_abi_version(void);

/// sizeof(normlab_call) in @p size; and, when @p fields is not null, each field's offset and
/// size, in declaration order, as fields[2 i] and fields[2 i + 1] (at most @p capacity values
/// written). Returns the number of fields. A caller that mirrors the struct (ctypes) compares
/// them before its first call.
NORMLAB_CAPI_EXPORT size_t normlab_call_layout(size_t* size, size_t* fields, size_t capacity);

/// The dispatcher's decision for @p call on the current device (normlab::plan): the scratch it
/// needs in @p scratch_bytes and the chosen kernel's name in @p kernel (truncated to
/// @p kernel_len, NUL-terminated; either may be null). Launches nothing.
NORMLAB_CAPI_EXPORT int normlab_plan(const normlab_call* call, size_t* scratch_bytes, char* kernel,
                                     size_t kernel_len, char* error, size_t error_len);

/// Plans @p call and launches the chosen kernel on @p cuda_stream (a cudaStream_t; null is the
/// default stream), as normlab::run. Returns NORMLAB_SCRATCH_SHORT, launching nothing, when
/// call->scratch_bytes is below what the plan needs: normlab_plan says how much. On any status
/// but NORMLAB_OK, @p error (when not null) holds the message, truncated to @p error_len.
NORMLAB_CAPI_EXPORT int normlab_run(const normlab_call* call, void* cuda_stream, char* error,
                                    size_t error_len);

#ifdef __cplusplus
}
#endif

#endif  // NORMLAB_CAPI_H
