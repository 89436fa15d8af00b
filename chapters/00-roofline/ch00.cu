// SPDX-License-Identifier: Apache-2.0
// Chapter 00: the roofline, and the eager baseline.
//
// A norm does about 5 FLOPs per element and must move 2 * rows * cols * sizeof(T) bytes, so
// the fastest it can possibly run is the time to copy the tensor once. copy_kernel is that
// copy written by hand; copy_memcpy asks the driver for it. rmsnorm_eager then does what an
// eager framework does: one launch per operator, every intermediate written to memory.
#include <cub/block/block_reduce.cuh>

#include "ch00.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::ch00 {

namespace {

constexpr int kThreads = 256;

unsigned int blocks_for(std::int64_t work, int per_block) {
  const std::int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

// [copy_float4]
// Each thread moves 16 bytes per step (one float4); the grid strides over the tensor, and
// the last count % 4 elements are copied one by one.
__global__ void copy_float4(const float* __restrict__ x, float* __restrict__ y,
                            std::int64_t count) {
  const std::int64_t vectors = count / 4;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::int64_t i = first; i < vectors; i += stride) {
    reinterpret_cast<float4*>(y)[i] = reinterpret_cast<const float4*>(x)[i];
  }
  for (std::int64_t i = 4 * vectors + first; i < count; i += stride)
    y[i] = x[i];
}
// [copy_float4]

// [eager_kernels]
// Launch 1 of 5: t = x * x, a full rows x cols temporary.
__global__ void square(const float* x, std::int64_t x_stride, float* t, std::int64_t rows,
                       std::int64_t cols) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < rows * cols; i += stride) {
    const float v = x[(i / cols) * x_stride + i % cols];
    t[i] = v * v;
  }
}

// Launch 2 of 5: m[row] = mean(t[row, :]), one block per row. The reduction itself is CUB's:
// chapters 02 and 03 show how to write one.
__global__ void row_mean(const float* t, float* m, std::int64_t cols) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage scratch;
  const float* row = t + static_cast<std::int64_t>(blockIdx.x) * cols;
  float sum = 0.0f;
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads)
    sum += row[c];
  sum = BlockReduce(scratch).Sum(sum);
  if (threadIdx.x == 0) m[blockIdx.x] = sum / static_cast<float>(cols);
}

// Launch 3 of 5: r = rsqrt(m + eps), in place over m.
__global__ void add_eps_rsqrt(float* m, std::int64_t rows, float eps) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row < rows) m[row] = rsqrtf(m[row] + eps);
}

// Launch 4 of 5: t = x * r[row], a second full temporary (over the first).
__global__ void scale_rows(const float* x, std::int64_t x_stride, const float* r, float* t,
                           std::int64_t rows, std::int64_t cols) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < rows * cols; i += stride) {
    t[i] = x[(i / cols) * x_stride + i % cols] * r[i / cols];
  }
}

// Launch 5 of 5: y = t * w[col].
__global__ void scale_cols(const float* t, const float* w, float* y, std::int64_t y_stride,
                           std::int64_t rows, std::int64_t cols) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < rows * cols; i += stride) {
    y[(i / cols) * y_stride + i % cols] = t[i] * w[i % cols];
  }
}
// [eager_kernels]

}  // namespace

void copy_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                 cudaStream_t stream) {
  validate_shape("ch00::copy_kernel", rows, cols);
  validate_tensor("ch00::copy_kernel", "x", x, rows, cols, cols);
  validate_tensor("ch00::copy_kernel", "y", y, rows, cols, cols);
  // One contiguous block: only its start must be 16-byte aligned, not every row.
  validate_alignment("ch00::copy_kernel", "x", x, 0, sizeof(float), 16);
  validate_alignment("ch00::copy_kernel", "y", y, 0, sizeof(float), 16);
  if (rows == 0) return;
  const std::int64_t count = rows * cols;
  copy_float4<<<blocks_for(count / 4 + 1, kThreads), kThreads, 0, stream>>>(x, y, count);
  NORMLAB_CHECK_LAUNCH();
}

void copy_memcpy(const float* x, std::int64_t x_stride, float* y, std::int64_t y_stride,
                 std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  validate_shape("ch00::copy_memcpy", rows, cols);
  validate_tensor("ch00::copy_memcpy", "x", x, rows, cols, x_stride);
  validate_tensor("ch00::copy_memcpy", "y", y, rows, cols, y_stride);
  if (rows == 0) return;
  NORMLAB_CHECK(cudaMemcpy2DAsync(y, y_stride * sizeof(float), x, x_stride * sizeof(float),
                                  cols * sizeof(float), rows, cudaMemcpyDeviceToDevice, stream));
}

// [eager_launcher]
void rmsnorm_eager(const float* x, std::int64_t x_stride, const float* weight, float* y,
                   std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                   cudaStream_t stream) {
  const char* fn = "ch00::rmsnorm_eager";
  validate_rmsnorm_arguments(fn, x, x_stride, weight, y, y_stride, rows, cols, eps);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;

  // Like a framework's caching allocator, the stream-ordered pool makes these cheap after
  // the first call (it keeps freed memory instead of returning it at each synchronisation);
  // the bytes they cost are the lesson.
  static const bool pool_keeps_memory = [] {
    int device = 0;
    NORMLAB_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool = nullptr;
    NORMLAB_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t keep_all = UINT64_MAX;
    NORMLAB_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
    return true;
  }();
  (void)pool_keeps_memory;
  float* t = nullptr;
  float* m = nullptr;
  NORMLAB_CHECK(cudaMallocAsync(&t, rows * cols * sizeof(float), stream));
  NORMLAB_CHECK(cudaMallocAsync(&m, rows * sizeof(float), stream));
  const unsigned int grid = blocks_for(rows * cols, kThreads);
  square<<<grid, kThreads, 0, stream>>>(x, x_stride, t, rows, cols);
  NORMLAB_CHECK_LAUNCH();
  row_mean<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(t, m, cols);
  NORMLAB_CHECK_LAUNCH();
  add_eps_rsqrt<<<blocks_for(rows, kThreads), kThreads, 0, stream>>>(m, rows, eps);
  NORMLAB_CHECK_LAUNCH();
  scale_rows<<<grid, kThreads, 0, stream>>>(x, x_stride, m, t, rows, cols);
  NORMLAB_CHECK_LAUNCH();
  scale_cols<<<grid, kThreads, 0, stream>>>(t, weight, y, y_stride, rows, cols);
  NORMLAB_CHECK_LAUNCH();
  NORMLAB_CHECK(cudaFreeAsync(t, stream));
  NORMLAB_CHECK(cudaFreeAsync(m, stream));
}
// [eager_launcher]

}  // namespace normlab::ch00
