// SPDX-License-Identifier: Apache-2.0
// The backward family's type-erased entry point (typed_gradients.hpp): a call's op and dtypes
// mapped to the typed launchers of backward.cuh.
#include "typed_gradients.hpp"

#include <string>

#include "backward.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/kernel.hpp"
#include "typed_call.hpp"

namespace normlab::kernels::backward {

namespace {

constexpr const char* kFunction = "kernels::backward::run";

template <typename T, typename P>
void run_op(const NormCall& call, Reduction reduction, cudaStream_t stream) {
  const Gradients<T, P> g = gradients_of<T, P>(call);
  if (call.op == Op::rmsnorm_backward) return rmsnorm_backward(g, reduction, stream);
  layernorm_backward(g, reduction, stream);
}

void run_typed(const NormCall& call, Reduction reduction, cudaStream_t stream) {
  with_dtype_pair<Pairings::narrow_parameters>(
      kFunction, call, [&]<typename T, typename P>() { run_op<T, P>(call, reduction, stream); });
}

// Refuses, naming the op, a call that is not a backward op.
void check_backward_op(const char* fn, const NormCall& call) {
  check_argument(call.op == Op::rmsnorm_backward || call.op == Op::layernorm_backward, fn, "op",
                 [&] {
                   return std::string("must be rmsnorm_backward or layernorm_backward (got ") +
                          name_of(call.op) + ")";
                 });
}

constexpr std::size_t kScratchAlignment = 256;

std::size_t aligned_up(std::size_t bytes) {
  return (bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment;
}

// The fp32 copies a call with dy in @p dy_dtype and x in @p dtype needs, of rows x cols each.
int widened_copies(DType dtype, DType dy_dtype) {
  if (dy_dtype == dtype) return 0;
  return (dy_dtype != DType::f32 ? 1 : 0) + (dtype != DType::f32 ? 3 : 0);
}

// A call whose dy is in another dtype than x (run() says how it runs).
void run_widened(const NormCall& call, Reduction reduction, cudaStream_t stream) {
  const DType dy_dtype = *call.dy_dtype;
  const bool narrow_x = call.dtype != DType::f32;
  check_argument(call.dx == nullptr || call.dx != call.dy, kFunction, "dx",
                 "may lie over dy only when dy is in x's dtype");
  auto tensor = [&](const char* name, const void* data, std::int64_t stride, DType dtype) {
    validate_tensor(kFunction, name, data, call.rows, call.cols, stride);
    validate_alignment(kFunction, name, data, stride, size_of(dtype), size_of(dtype));
  };
  validate_shape(kFunction, call.rows, call.cols);
  tensor("x", call.x, call.x_stride, call.dtype);
  validate_row_groups(kFunction, "x", call.rows, call.cols, call.x_stride, call.x_group_rows,
                      call.x_group_stride);
  tensor("dy", call.dy, call.dy_stride, dy_dtype);
  tensor("dx", call.dx, call.dx_stride, call.dtype);
  if (call.dresidual != nullptr)
    tensor("dresidual", call.dresidual, call.dresidual_stride, call.dtype);
  const bool centre = call.op == Op::layernorm_backward;
  const std::size_t sums = aligned_up(scratch_bytes(reduction, centre, call.rows, call.cols));
  const auto copy_bytes = aligned_up(static_cast<std::size_t>(call.rows * call.cols) * 4);
  const std::size_t needed = sums + widened_copies(call.dtype, dy_dtype) * copy_bytes;
  check_argument(call.scratch_bytes >= needed && (needed == 0 || call.scratch != nullptr),
                 kFunction, "scratch", [&] {
                   return "must hold " + std::to_string(needed) + " bytes (got " +
                          std::to_string(call.scratch_bytes) + ")";
                 });
  char* next = static_cast<char*>(call.scratch) + sums;
  auto copy = [&] {
    auto* into = reinterpret_cast<float*>(next);
    next += copy_bytes;
    return into;
  };
  NormCall wide = call;
  wide.dtype = DType::f32;
  wide.dy_dtype = std::nullopt;
  wide.scratch_bytes = sums;
  float* dx = nullptr;
  if (dy_dtype != DType::f32) {
    auto* dy = copy();
    widen(dy_dtype, call.dy, call.dy_stride, dy, call.rows, call.cols, stream);
    wide.dy = dy;
    wide.dy_stride = call.cols;
  }
  if (narrow_x) {
    auto* x = copy();
    widen(call.dtype, call.x, call.x_stride, x, call.rows, call.cols, stream, call.x_group_rows,
          call.x_group_stride);
    wide.x = x;
    wide.x_stride = call.cols;
    wide.x_group_rows = 0;
    auto* dresidual = copy();
    if (call.dresidual != nullptr) {
      widen(call.dtype, call.dresidual, call.dresidual_stride, dresidual, call.rows, call.cols,
            stream);
      wide.dresidual = dresidual;
      wide.dresidual_stride = call.cols;
    }
    dx = copy();
    wide.dx = dx;
    wide.dx_stride = call.cols;
  }
  run_typed(wide, reduction, stream);
  if (narrow_x) narrow(call.dtype, dx, call.dx, call.dx_stride, call.rows, call.cols, stream);
}

}  // namespace

std::size_t scratch_bytes(Reduction reduction, bool centre, const Shape& shape) {
  const std::size_t sums = scratch_bytes(reduction, centre, shape.rows, shape.cols);
  const int copies = widened_copies(shape.dtype, dy_dtype_of(shape));
  if (copies == 0) return sums;
  return aligned_up(sums) +
         copies * aligned_up(static_cast<std::size_t>(shape.rows * shape.cols) * 4);
}

void run(const NormCall& call, Reduction reduction, cudaStream_t stream) {
  check_backward_op(kFunction, call);
  if (call.dy_dtype && *call.dy_dtype != call.dtype) return run_widened(call, reduction, stream);
  run_typed(call, reduction, stream);
}

std::size_t cluster_scratch_bytes(bool centre, const Shape& shape) {
  return cluster_scratch_bytes(centre, shape.rows, shape.cols,
                               static_cast<int>(size_of(shape.dtype)));
}

void run_cluster(const NormCall& call, cudaStream_t stream) {
  constexpr const char* kCluster = "kernels::backward::run_cluster";
  check_backward_op(kCluster, call);
  check_argument(!call.dy_dtype || *call.dy_dtype == call.dtype, kCluster, "dy_dtype", [&] {
    return std::string("must be x's dtype (") + name_of(call.dtype) + ") for a row over a cluster";
  });
  with_dtype_pair<Pairings::narrow_parameters>(kCluster, call, [&]<typename T, typename P>() {
    const Gradients<T, P> g = gradients_of<T, P>(call);
    if (call.op == Op::rmsnorm_backward) return rmsnorm_backward_cluster(g, stream);
    layernorm_backward_cluster(g, stream);
  });
}

}  // namespace normlab::kernels::backward
