// SPDX-License-Identifier: Apache-2.0
// The backward family: dx, dweight and dbias (taught in chapter 08).
//
// Training runs every norm backwards as often as forwards. With g = dy * w (or dy * (1 + w)),
// rstd saved by the forward and x_hat = (x - mean) * rstd (RMSNorm: mean 0):
//   dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))    (RMSNorm: no mean(g) term)
//   dweight = sum over rows of dy * x_hat,  dbias = sum over rows of dy.
// dx is the forward's row again, a row at a time, with two rows in registers (x and dy) and two
// sums of the row reduced in one pass. dweight and dbias are new: a sum down the columns, across
// every row, so across blocks. The ladder:
//   (a) one block per row, each adding its dy * x_hat into one fp32 row with atomicAdd: short,
//       but the adds land in whatever order the blocks finish, so the bits differ between runs,
//       and every block contends for the same cols addresses;
//   (b) a persistent grid, a few blocks per SM, each walking every gridDim.x-th row with the
//       same columns per thread, so a thread keeps its columns' sums in fp32 registers; each
//       block stores one partial row, and sum_partials adds the partial rows in a fixed order:
//       the same bits on every run, and grid x cols floats of extra traffic instead of rows x
//       cols atomics;
//   (c) narrow rows: a warp a row, reduced by shuffles alone, several rows a block, and the
//       block's warps adding their column sums in shared memory, in warp order, before the
//       block stores its one partial row.
// The device code is in row_backward.cuh, the launch decisions in backward_launch.cuh; this
// file holds the typed launchers and their argument checks.
#include "backward.cuh"

#include <string>

#include "backward_launch.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::kernels::backward {

std::size_t scratch_bytes(Reduction reduction, bool centre, std::int64_t rows, std::int64_t cols) {
  if (rows == 0) return 0;  // no row kernel runs: the column sums read no partial row
  const std::int64_t sums_rows = reduction == Reduction::atomic ? 1 : most_partial_rows(rows);
  return static_cast<std::size_t>(sums_rows * cols) * sizeof(float) * (centre ? 2 : 1);
}

namespace {

// [validate]
// The checks of every launcher, before anything is launched: a shape no wider than the op's most;
// x, dy and dx (and dresidual when given) non-null when rows > 0, with strides of at least
// cols, aligned to their element; the saved statistics; the gradient of every parameter given;
// and scratch enough for the reduction.
template <typename T, typename P>
void validate(const char* fn, const Gradients<T, P>& g, Reduction reduction, bool centre) {
  validate_shape(fn, g.rows, g.cols);
  const std::int64_t most_cols = centre ? kMaxLayernormCols : kMaxRmsnormCols;
  check_argument(g.cols <= most_cols, fn, "cols", [&] {
    return "must be at most " + std::to_string(most_cols) + " (got " + std::to_string(g.cols) +
           "): x, dy and the column sums live in registers";
  });
  auto tensor = [&](const char* name, const void* data, std::int64_t stride) {
    validate_tensor(fn, name, data, g.rows, g.cols, stride);
    validate_alignment(fn, name, data, stride, sizeof(T), sizeof(T));
  };
  tensor("x", g.x, g.x_stride);
  tensor("dy", g.dy, g.dy_stride);
  tensor("dx", g.dx, g.dx_stride);
  if (g.dresidual != nullptr) tensor("dresidual", g.dresidual, g.dresidual_stride);
  validate_alignment(fn, "weight", g.weight, 0, sizeof(P), sizeof(P));
  check_argument((g.weight == nullptr) == (g.dweight == nullptr), fn, "dweight",
                 "must be given exactly when weight is");
  check_argument(g.rows == 0 || g.saved_rstd != nullptr, fn, "saved_rstd", "must not be null");
  check_argument(!centre || g.rows == 0 || g.saved_mean != nullptr, fn, "saved_mean",
                 "must not be null for LayerNorm");
  const std::size_t needed = scratch_bytes(reduction, centre, g.rows, g.cols);
  check_argument(g.scratch_bytes >= needed && (needed == 0 || g.scratch != nullptr), fn, "scratch",
                 [&] {
                   return "must hold " + std::to_string(needed) + " bytes (got " +
                          std::to_string(g.scratch_bytes) + ")";
                 });
}
// [validate]

template <bool kCentre, typename T, typename P>
void run(const char* fn, const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  validate(fn, g, reduction, kCentre);
  Gradients<T, P> used = g;
  if (!kCentre) used.dbias = nullptr;
  launch<T, P, kCentre>(used, reduction, stream);
}

}  // namespace

template <typename T, typename P>
void rmsnorm_backward(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  run<false>("kernels::backward::rmsnorm_backward", g, reduction, stream);
}

template <typename T, typename P>
void layernorm_backward(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  run<true>("kernels::backward::layernorm_backward", g, reduction, stream);
}

// The dtype pairings the family supports: activations in T, parameters in T or fp32.
template void rmsnorm_backward(const Gradients<float, float>&, Reduction, cudaStream_t);
template void rmsnorm_backward(const Gradients<__half, __half>&, Reduction, cudaStream_t);
template void rmsnorm_backward(const Gradients<__half, float>&, Reduction, cudaStream_t);
template void rmsnorm_backward(const Gradients<__nv_bfloat16, __nv_bfloat16>&, Reduction,
                               cudaStream_t);
template void rmsnorm_backward(const Gradients<__nv_bfloat16, float>&, Reduction, cudaStream_t);
template void layernorm_backward(const Gradients<float, float>&, Reduction, cudaStream_t);
template void layernorm_backward(const Gradients<__half, __half>&, Reduction, cudaStream_t);
template void layernorm_backward(const Gradients<__half, float>&, Reduction, cudaStream_t);
template void layernorm_backward(const Gradients<__nv_bfloat16, __nv_bfloat16>&, Reduction,
                                 cudaStream_t);
template void layernorm_backward(const Gradients<__nv_bfloat16, float>&, Reduction, cudaStream_t);

}  // namespace normlab::kernels::backward
