// SPDX-License-Identifier: Apache-2.0
// The backward family's type-erased entry point (typed_gradients.hpp): a call's op and dtypes
// mapped to the typed launchers of backward.cuh.
#include "typed_gradients.hpp"

#include <functional>
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

// A call whose dy is in another dtype than x as the fp32 call it runs as (run() says how), and
// the fp32 copies that call reads and writes in the scratch (null: the tensor as given).
struct Widened {
  NormCall fp32;
  float* dy = nullptr;
  float* x = nullptr;
  float* dresidual = nullptr;
  float* dx = nullptr;
};

// @p call's arguments checked and its fp32 copies laid out in the scratch after the fp32
// launch's own @p sums bytes; nothing launched.
Widened widened(const char* fn, const NormCall& call, std::size_t sums) {
  const DType dy_dtype = *call.dy_dtype;
  check_argument(call.dx == nullptr || call.dx != call.dy, fn, "dx",
                 "may lie over dy only when dy is in x's dtype");
  auto tensor = [&](const char* name, const void* data, std::int64_t stride, DType dtype) {
    validate_tensor(fn, name, data, call.rows, call.cols, stride);
    validate_alignment(fn, name, data, stride, size_of(dtype), size_of(dtype));
  };
  validate_shape(fn, call.rows, call.cols);
  tensor("x", call.x, call.x_stride, call.dtype);
  validate_row_groups(fn, "x", call.rows, call.cols, call.x_stride, call.x_group_rows,
                      call.x_group_stride);
  tensor("dy", call.dy, call.dy_stride, dy_dtype);
  tensor("dx", call.dx, call.dx_stride, call.dtype);
  if (call.dresidual != nullptr)
    tensor("dresidual", call.dresidual, call.dresidual_stride, call.dtype);
  sums = aligned_up(sums);
  const auto copy_bytes = aligned_up(static_cast<std::size_t>(call.rows * call.cols) * 4);
  const std::size_t needed = sums + widened_copies(call.dtype, dy_dtype) * copy_bytes;
  check_argument(call.scratch_bytes >= needed && (needed == 0 || call.scratch != nullptr), fn,
                 "scratch", [&] {
                   return "must hold " + std::to_string(needed) + " bytes (got " +
                          std::to_string(call.scratch_bytes) + ")";
                 });
  char* next = static_cast<char*>(call.scratch) + sums;
  auto copy = [&] {
    auto* into = reinterpret_cast<float*>(next);
    next += copy_bytes;
    return into;
  };
  Widened wide{.fp32 = call};
  wide.fp32.dtype = DType::f32;
  wide.fp32.dy_dtype = std::nullopt;
  wide.fp32.scratch_bytes = sums;
  if (dy_dtype != DType::f32) {
    wide.dy = copy();
    wide.fp32.dy = wide.dy;
    wide.fp32.dy_stride = call.cols;
  }
  if (call.dtype != DType::f32) {
    wide.x = copy();
    wide.fp32.x = wide.x;
    wide.fp32.x_stride = call.cols;
    wide.fp32.x_group_rows = 0;
    float* dresidual = copy();  // its place is kept whether or not dresidual is given
    if (call.dresidual != nullptr) {
      wide.dresidual = dresidual;
      wide.fp32.dresidual = dresidual;
      wide.fp32.dresidual_stride = call.cols;
    }
    wide.dx = copy();
    wide.fp32.dx = wide.dx;
    wide.fp32.dx_stride = call.cols;
  }
  return wide;
}

// Runs @p call as @p wide (widened()) through @p run_fp32: its 16-bit tensors widened into their
// copies, the fp32 launch, then dx rounded to x's dtype.
void run_widened(const NormCall& call, const Widened& wide,
                 const std::function<void(const NormCall&)>& run_fp32, cudaStream_t stream) {
  if (wide.dy != nullptr)
    widen(*call.dy_dtype, call.dy, call.dy_stride, wide.dy, call.rows, call.cols, stream);
  if (wide.x != nullptr)
    widen(call.dtype, call.x, call.x_stride, wide.x, call.rows, call.cols, stream,
          call.x_group_rows, call.x_group_stride);
  if (wide.dresidual != nullptr)
    widen(call.dtype, call.dresidual, call.dresidual_stride, wide.dresidual, call.rows, call.cols,
          stream);
  run_fp32(wide.fp32);
  if (wide.dx != nullptr)
    narrow(call.dtype, wide.dx, call.dx, call.dx_stride, call.rows, call.cols, stream);
}

// Whether @p call's dy is in another dtype than x (NormCall::dy_dtype).
bool other_dy_dtype(const NormCall& call) {
  return call.dy_dtype && *call.dy_dtype != call.dtype;
}

// The scratch of a call of @p shape whose fp32 launch needs @p sums bytes: those, and the fp32
// copies when dy is in another dtype than x, each on a 256-byte boundary.
std::size_t with_copies(std::size_t sums, const Shape& shape) {
  const int copies = widened_copies(shape.dtype, dy_dtype_of(shape));
  if (copies == 0) return sums;
  return aligned_up(sums) +
         copies * aligned_up(static_cast<std::size_t>(shape.rows * shape.cols) * 4);
}

}  // namespace

Capabilities capabilities(bool centre) {
  return {.dtypes = {DType::f32, DType::f16, DType::bf16},
          .fp32_parameters = true,
          .narrow_parameters = true,
          .rmsnorm_bias = !centre,
          .other_dy_dtype = true,
          .optional_parameters = true,
          .weight_plus_one = true,
          .in_place = true,
          .two_level_rows = true,
          .residual_gradient = true};
}

std::size_t scratch_bytes(Reduction reduction, bool centre, const Shape& shape) {
  return with_copies(scratch_bytes(reduction, centre, shape.rows, shape.cols), shape);
}

void run(const NormCall& call, Reduction reduction, cudaStream_t stream) {
  check_backward_op(kFunction, call);
  if (!other_dy_dtype(call)) return run_typed(call, reduction, stream);
  const bool centre = call.op == Op::layernorm_backward;
  const Widened wide =
      widened(kFunction, call, scratch_bytes(reduction, centre, call.rows, call.cols));
  run_widened(
      call, wide, [&](const NormCall& fp32) { run_typed(fp32, reduction, stream); }, stream);
}

std::size_t cluster_scratch_bytes(bool centre, const Shape& shape,
                                  std::optional<ClusterBackwardShape> cluster) {
  // With a dy of another dtype than x's, the cluster runs the row widened to fp32.
  const DType runs = dy_dtype_of(shape) == shape.dtype ? shape.dtype : DType::f32;
  return with_copies(cluster_scratch_bytes(centre, shape.rows, shape.cols,
                                           static_cast<int>(size_of(runs)), cluster),
                     shape);
}

void run_cluster(const NormCall& call, cudaStream_t stream,
                 std::optional<ClusterBackwardShape> cluster) {
  constexpr const char* kCluster = "kernels::backward::run_cluster";
  check_backward_op(kCluster, call);
  auto launch = [&](const NormCall& typed) {
    with_dtype_pair<Pairings::narrow_parameters>(kCluster, typed, [&]<typename T, typename P>() {
      const Gradients<T, P> g = gradients_of<T, P>(typed);
      if (typed.op == Op::rmsnorm_backward) return rmsnorm_backward_cluster(g, stream, cluster);
      layernorm_backward_cluster(g, stream, cluster);
    });
  };
  if (!other_dy_dtype(call)) return launch(call);
  const bool centre = call.op == Op::layernorm_backward;
  const Widened wide = widened(
      kCluster, call, cluster_scratch_bytes(centre, call.rows, call.cols, sizeof(float), cluster));
  // The fp32 row must fit a cluster before anything is widened.
  std::int64_t widest = 0;
  with_dtype_pair<Pairings::narrow_parameters>(kCluster, wide.fp32, [&]<typename T, typename P>() {
    widest = cluster_backward_cols(gradients_of<T, P>(wide.fp32), cluster);
  });
  check_argument(call.cols <= widest, kCluster, "dy_dtype", [&] {
    const std::string runs =
        std::string("other than x's (") + name_of(call.dtype) + ") runs the row widened to fp32, ";
    if (widest == 0) return runs + "off the 16-byte grid, which this cluster shape does not take";
    return runs + "of which a cluster holds at most " + std::to_string(widest) +
           " columns at these tensors' alignment (got " + std::to_string(call.cols) + ")";
  });
  run_widened(call, wide, launch, stream);
}

}  // namespace normlab::kernels::backward
