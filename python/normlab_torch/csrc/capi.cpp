// SPDX-License-Identifier: Apache-2.0
// The C ABI of normlab_capi.h: each function converts the C struct to a NormCall, calls the
// dispatcher, and turns every exception into a status and a message, since an exception that
// reached a ctypes caller would abort the Python process.
#include "normlab_capi.h"

#include <cstddef>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "dispatcher.hpp"
#include "normlab/normlab.hpp"

namespace {

using normlab::DType;
using normlab::NormCall;
using normlab::Op;

static_assert(static_cast<int>(Op::copy) == NORMLAB_OP_COPY);
static_assert(static_cast<int>(Op::rmsnorm) == NORMLAB_OP_RMSNORM);
static_assert(static_cast<int>(Op::layernorm) == NORMLAB_OP_LAYERNORM);
static_assert(static_cast<int>(Op::add_rmsnorm) == NORMLAB_OP_ADD_RMSNORM);
static_assert(static_cast<int>(Op::add_layernorm) == NORMLAB_OP_ADD_LAYERNORM);
static_assert(static_cast<int>(Op::rmsnorm_backward) == NORMLAB_OP_RMSNORM_BACKWARD);
static_assert(static_cast<int>(Op::layernorm_backward) == NORMLAB_OP_LAYERNORM_BACKWARD);
static_assert(static_cast<int>(DType::f32) == NORMLAB_DTYPE_F32);
static_assert(static_cast<int>(DType::f16) == NORMLAB_DTYPE_F16);
static_assert(static_cast<int>(DType::bf16) == NORMLAB_DTYPE_BF16);

// Copies @p text into the caller's buffer, truncated and NUL-terminated; nothing when absent.
void copy_out(const std::string& text, char* buffer, std::size_t length) {
  if (buffer == nullptr || length == 0) return;
  const std::size_t n = text.size() < length - 1 ? text.size() : length - 1;
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

// An enum value from C, checked before the cast: an out-of-range value names its field.
template <typename Enum>
Enum checked_enum(int32_t value, int32_t last, const char* field) {
  if (value < 0 || value > last)
    throw std::invalid_argument(std::string("normlab_call.") + field + " is " +
                                std::to_string(value) + ", outside 0.." + std::to_string(last));
  return static_cast<Enum>(value);
}

NormCall to_norm_call(const normlab_call* c) {
  if (c == nullptr) throw std::invalid_argument("call is null");
  return {.op = checked_enum<Op>(c->op, NORMLAB_OP_LAYERNORM_BACKWARD, "op"),
          .dtype = checked_enum<DType>(c->dtype, NORMLAB_DTYPE_BF16, "dtype"),
          .weight_dtype = checked_enum<DType>(c->weight_dtype, NORMLAB_DTYPE_BF16, "weight_dtype"),
          .dy_dtype = c->dy_dtype_given != 0 ? std::optional(checked_enum<DType>(
                                                   c->dy_dtype, NORMLAB_DTYPE_BF16, "dy_dtype"))
                                             : std::nullopt,
          .residual_dtype = c->residual_dtype_given != 0
                                ? std::optional(checked_enum<DType>(
                                      c->residual_dtype, NORMLAB_DTYPE_BF16, "residual_dtype"))
                                : std::nullopt,
          .rows = c->rows,
          .cols = c->cols,
          .eps = c->eps,
          .x = c->x,
          .x_stride = c->x_stride,
          .x_group_rows = c->x_group_rows,
          .x_group_stride = c->x_group_stride,
          .residual = c->residual,
          .residual_stride = c->residual_stride,
          .y = c->y,
          .y_stride = c->y_stride,
          .residual_out = c->residual_out,
          .residual_out_stride = c->residual_out_stride,
          .weight = c->weight,
          .bias = c->bias,
          .weight_plus_one = c->weight_plus_one != 0,
          .mean = c->mean,
          .rstd = c->rstd,
          .dy = c->dy,
          .dy_stride = c->dy_stride,
          .dresidual = c->dresidual,
          .dresidual_stride = c->dresidual_stride,
          .dx = c->dx,
          .dx_stride = c->dx_stride,
          .dweight = c->dweight,
          .dbias = c->dbias,
          .saved_mean = c->saved_mean,
          .saved_rstd = c->saved_rstd,
          .scratch = c->scratch,
          .scratch_bytes = c->scratch_bytes};
}

// Runs @p body and maps what it throws to a status, its message copied into @p error.
template <typename Body>
int guarded(char* error, std::size_t error_len, Body body) {
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    copy_out(e.what(), error, error_len);
    return NORMLAB_INVALID_ARGUMENT;
  } catch (const std::runtime_error& e) {
    copy_out(e.what(), error, error_len);
    return NORMLAB_RUNTIME_ERROR;
  } catch (const std::exception& e) {
    copy_out(e.what(), error, error_len);
    return NORMLAB_INTERNAL_ERROR;
  } catch (...) {
    copy_out("unknown exception", error, error_len);
    return NORMLAB_INTERNAL_ERROR;
  }
}

}  // namespace

extern "C" {

int normlab_capi_abi_version(void) {
  return NORMLAB_CAPI_ABI_VERSION;
}

size_t normlab_call_layout(size_t* size, size_t* fields, size_t capacity) {
#define NORMLAB_FIELD(name) offsetof(normlab_call, name), sizeof(normlab_call::name)
  // In declaration order; the ctypes mirror lists its fields in the same order.
  const std::size_t layout[] = {
      NORMLAB_FIELD(op),
      NORMLAB_FIELD(dtype),
      NORMLAB_FIELD(weight_dtype),
      NORMLAB_FIELD(weight_plus_one),
      NORMLAB_FIELD(rows),
      NORMLAB_FIELD(cols),
      NORMLAB_FIELD(eps),
      NORMLAB_FIELD(x),
      NORMLAB_FIELD(x_stride),
      NORMLAB_FIELD(residual),
      NORMLAB_FIELD(residual_stride),
      NORMLAB_FIELD(y),
      NORMLAB_FIELD(y_stride),
      NORMLAB_FIELD(residual_out),
      NORMLAB_FIELD(residual_out_stride),
      NORMLAB_FIELD(weight),
      NORMLAB_FIELD(bias),
      NORMLAB_FIELD(mean),
      NORMLAB_FIELD(rstd),
      NORMLAB_FIELD(dy),
      NORMLAB_FIELD(dy_stride),
      NORMLAB_FIELD(dresidual),
      NORMLAB_FIELD(dresidual_stride),
      NORMLAB_FIELD(dx),
      NORMLAB_FIELD(dx_stride),
      NORMLAB_FIELD(dweight),
      NORMLAB_FIELD(dbias),
      NORMLAB_FIELD(saved_mean),
      NORMLAB_FIELD(saved_rstd),
      NORMLAB_FIELD(scratch),
      NORMLAB_FIELD(scratch_bytes),
      NORMLAB_FIELD(dy_dtype_given),
      NORMLAB_FIELD(dy_dtype),
      NORMLAB_FIELD(residual_dtype_given),
      NORMLAB_FIELD(residual_dtype),
      NORMLAB_FIELD(x_group_rows),
      NORMLAB_FIELD(x_group_stride),
  };
#undef NORMLAB_FIELD
  const std::size_t entries = sizeof(layout) / sizeof(layout[0]);
  if (size != nullptr) *size = sizeof(normlab_call);
  for (std::size_t i = 0; fields != nullptr && i < entries && i < capacity; ++i)
    fields[i] = layout[i];
  return entries / 2;
}

int normlab_plan(const normlab_call* call, size_t* scratch_bytes, char* kernel, size_t kernel_len,
                 char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    const normlab::Plan plan = normlab::plan(to_norm_call(call));
    if (scratch_bytes != nullptr) *scratch_bytes = plan.scratch_bytes;
    copy_out(plan.kernel != nullptr ? plan.kernel->name : std::string(), kernel, kernel_len);
    return NORMLAB_OK;
  });
}

int normlab_run(const normlab_call* call, void* cuda_stream, char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    const NormCall norm_call = to_norm_call(call);
    // Planned here (a repeated layout takes its kept plan), so that a short scratch is its own
    // status, which the caller answers by allocating what normlab_plan says and calling again.
    const auto planned = normlab::dispatch::planned_for_launch(norm_call);
    const std::size_t needed = planned->scratch_bytes;
    if (norm_call.scratch_bytes < needed) {
      copy_out("scratch_bytes is " + std::to_string(norm_call.scratch_bytes) + "; the plan needs " +
                   std::to_string(needed),
               error, error_len);
      return NORMLAB_SCRATCH_SHORT;
    }
    normlab::dispatch::run_kept(norm_call, *planned, static_cast<cudaStream_t>(cuda_stream));
    return NORMLAB_OK;
  });
}

}  // extern "C"
