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

#include <algorithm>
#include <string>

#include "backward_launch.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::kernels::backward {

std::size_t scratch_bytes(Reduction reduction, bool centre, std::int64_t rows, std::int64_t cols) {
  // No rows: no row kernel runs, and the column sums read no partial row. One row: its one
  // block writes the gradients itself (backward_launch.cuh).
  if (rows <= 1) return 0;
  const std::int64_t sums_rows = reduction == Reduction::atomic ? 1 : most_partial_rows(rows);
  return static_cast<std::size_t>(sums_rows * cols) * sizeof(float) * (centre ? 2 : 1);
}

namespace {

// The checks of chapter 08's launchers: a row no wider than the registers of one block hold,
// then every launcher's checks (backward_launch.cuh's validate_gradients) with the reduction's
// scratch.
template <typename T, typename P>
void validate(const char* fn, const Gradients<T, P>& g, Reduction reduction, bool centre) {
  const std::int64_t most_cols = centre ? kMaxLayernormCols : kMaxRmsnormCols;
  check_argument(g.cols <= most_cols, fn, "cols", [&] {
    return "must be at most " + std::to_string(most_cols) + " (got " + std::to_string(g.cols) +
           "): x, dy and the column sums live in registers";
  });
  validate_gradients(fn, g, centre, scratch_bytes(reduction, centre, g.rows, g.cols));
}

// RMSNorm's dbias (a bias is optional there) is the column sums of dy, summed before the row
// kernel runs; LayerNorm's row kernels sum it with dweight.
template <bool kCentre, typename T, typename P>
void run(const char* fn, const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  validate(fn, g, reduction, kCentre);
  if (!kCentre && g.dbias != nullptr) sum_dy_columns(g, stream);
  launch<T, P, kCentre>(g, reduction, stream);
}

// One thread an element: rows x cols elements, rows stride apart on one side and contiguous on
// the other. The conversions are to_float (exact) and from_float (rounded to nearest even).
// The rows of @p from may have two levels (x of a head view: row_offset).
template <typename S>
__global__ void widen_rows(const S* from, std::int64_t stride, std::int64_t group_rows,
                           std::int64_t group_stride, float* to, std::int64_t rows,
                           std::int64_t cols) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < rows * cols; i += step)
    to[i] = to_float(from[row_offset(i / cols, stride, group_rows, group_stride) + i % cols]);
}

template <typename S>
__global__ void narrow_rows(const float* from, S* to, std::int64_t stride, std::int64_t rows,
                            std::int64_t cols) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < rows * cols; i += step)
    to[i / cols * stride + i % cols] = from_float<S>(from[i]);
}

constexpr unsigned int kConvertThreads = 256;

unsigned int convert_blocks(std::int64_t rows, std::int64_t cols) {
  const std::int64_t blocks = (rows * cols + kConvertThreads - 1) / kConvertThreads;
  return static_cast<unsigned int>(std::min<std::int64_t>(blocks, sm_count() * 32));
}

}  // namespace

void widen(DType dtype, const void* from, std::int64_t stride, float* to, std::int64_t rows,
           std::int64_t cols, cudaStream_t stream, std::int64_t group_rows,
           std::int64_t group_stride) {
  if (rows == 0) return;
  const unsigned int blocks = convert_blocks(rows, cols);
  if (dtype == DType::f16) {
    widen_rows<<<blocks, kConvertThreads, 0, stream>>>(static_cast<const __half*>(from), stride,
                                                       group_rows, group_stride, to, rows, cols);
  } else {
    check_argument(dtype == DType::bf16, "kernels::backward::widen", "dtype",
                   "must be fp16 or bf16");
    widen_rows<<<blocks, kConvertThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(from), stride, group_rows, group_stride, to, rows, cols);
  }
  NORMLAB_CHECK_LAUNCH();
}

void narrow(DType dtype, const float* from, void* to, std::int64_t stride, std::int64_t rows,
            std::int64_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned int blocks = convert_blocks(rows, cols);
  if (dtype == DType::f16) {
    narrow_rows<<<blocks, kConvertThreads, 0, stream>>>(from, static_cast<__half*>(to), stride,
                                                        rows, cols);
  } else {
    check_argument(dtype == DType::bf16, "kernels::backward::narrow", "dtype",
                   "must be fp16 or bf16");
    narrow_rows<<<blocks, kConvertThreads, 0, stream>>>(from, static_cast<__nv_bfloat16*>(to),
                                                        stride, rows, cols);
  }
  NORMLAB_CHECK_LAUNCH();
}

template <typename T, typename P>
void rmsnorm_backward(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  run<false>("kernels::backward::rmsnorm_backward", g, reduction, stream);
}

template <typename T, typename P>
void layernorm_backward(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  run<true>("kernels::backward::layernorm_backward", g, reduction, stream);
}

// The dtype pairings the family supports: activations in T, parameters in T or fp32; and fp32
// activations with fp16 or bf16 parameters.
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
template void rmsnorm_backward(const Gradients<float, __half>&, Reduction, cudaStream_t);
template void rmsnorm_backward(const Gradients<float, __nv_bfloat16>&, Reduction, cudaStream_t);
template void layernorm_backward(const Gradients<float, __half>&, Reduction, cudaStream_t);
template void layernorm_backward(const Gradients<float, __nv_bfloat16>&, Reduction, cudaStream_t);

}  // namespace normlab::kernels::backward
