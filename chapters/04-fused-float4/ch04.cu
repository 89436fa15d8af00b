// SPDX-License-Identifier: Apache-2.0
// Chapter 04: fused single pass, 16-byte accesses.
//
// Chapters 01 to 03 read x twice: once to sum the squares, once to scale. For rows that fit,
// the second read can go: each thread loads its slice of the row into registers, the block
// reduces, and the same registers are scaled and stored. x then crosses the memory bus once,
// and the kernel moves 2 * rows * cols * 4 bytes, like a copy.
//
// Two more changes make those bytes flow at full speed. Each access moves 16 bytes (float4,
// one LDG.128 / STG.128 per thread instead of four 4-byte ones), and every load of a thread is
// issued before the first one is used, so a whole row is in flight at once.
//
// Alignment. A float4 access must be 16-byte aligned. Every row starts aligned exactly when
// the base pointers are 16-byte aligned and the row strides are multiples of 4 elements; the
// launcher checks that (and the weight's alignment) once and otherwise runs the same kernels
// with 4-byte accesses. Rows of such tensors have cols % 4 elements after their last whole
// float4: the tail, read and written one element at a time. (Peeling the first misaligned
// elements of every row instead would keep 16-byte accesses for misaligned rows too, but
// each row would then meet the weight at a different alignment.)
//
// Width. A thread's slice lives in a register array whose size is a template argument, so
// every index is known at compile time and the array stays in registers (an array indexed at
// run time would live in local memory). Four configurations cover rows up to
// kMaxRegisterCols; wider rows take rmsnorm_two_reads_kernel, which reads x a second time.
#include "ch04.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "packs.cuh"

namespace normlab::ch04 {

namespace {

// [registers]
// What changed from chapter 03: the row is loaded once, into registers (kPacks packs per
// thread, all loads issued before the first use), reduced (chapter 03's two-level sum, now the
// library's device::block_sum_once: one barrier, as in chapter 03, since each block reduces
// once), then scaled from those registers.
// Thread t holds packs t, t + kThreads, ...; the tail (the cols % 4 elements after the
// last whole float4; none on the 4-byte path) is one element each for the first threads.
// __launch_bounds__ caps registers so that at least 1024 threads fit on an SM.
template <typename Pack, int kThreads, int kPacks>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    rmsnorm_registers_kernel(const float* __restrict__ x, std::int64_t x_stride,
                             const float* __restrict__ weight, float* __restrict__ y,
                             std::int64_t y_stride, int cols, float eps) {
  const int t = threadIdx.x;
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;
  const int packs = cols / kWidth<Pack>;
  const int tail = packs * kWidth<Pack> + t;

  Pack slice[kPacks];
#pragma unroll
  for (int i = 0; i < kPacks; ++i) {
    const int p = i * kThreads + t;
    slice[i] = p < packs ? reinterpret_cast<const Pack*>(x_row)[p] : Pack{};
  }
  const float tail_value = tail < cols ? x_row[tail] : 0.0f;

  float sum_of_squares = squares(tail_value);
#pragma unroll
  for (int i = 0; i < kPacks; ++i)
    sum_of_squares += squares(slice[i]);
  const float inverse_rms =
      rsqrtf(device::block_sum_once<kThreads>(sum_of_squares) / static_cast<float>(cols) + eps);

#pragma unroll
  for (int i = 0; i < kPacks; ++i) {
    const int p = i * kThreads + t;
    if (p < packs) {
      reinterpret_cast<Pack*>(y_row)[p] =
          normalized(slice[i], reinterpret_cast<const Pack*>(weight)[p], inverse_rms);
    }
  }
  if (tail < cols) y_row[tail] = normalized(tail_value, weight[tail], inverse_rms);
}
// [registers]

// [two_reads]
// Rows too wide for registers: the same accesses, but x is read twice, once for the sum and
// once to scale. While the rows resident on the GPU fit on chip the second read is served
// there (mostly by the SM's L1, the profile shows), so DRAM still sees about
// 2 * rows * cols * 4 bytes; the loop just issues more loads.
template <typename Pack, int kThreads>
__global__ void __launch_bounds__(kThreads)
    rmsnorm_two_reads_kernel(const float* __restrict__ x, std::int64_t x_stride,
                             const float* __restrict__ weight, float* __restrict__ y,
                             std::int64_t y_stride, std::int64_t cols, float eps) {
  const int t = threadIdx.x;
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;
  const auto* x_packs = reinterpret_cast<const Pack*>(x_row);
  const std::int64_t packs = cols / kWidth<Pack>;
  const std::int64_t tail = packs * kWidth<Pack> + t;

  float sum_of_squares = tail < cols ? squares(x_row[tail]) : 0.0f;
#pragma unroll 4
  for (std::int64_t p = t; p < packs; p += kThreads)
    sum_of_squares += squares(x_packs[p]);
  const float inverse_rms =
      rsqrtf(device::block_sum_once<kThreads>(sum_of_squares) / static_cast<float>(cols) + eps);

  const auto* weight_packs = reinterpret_cast<const Pack*>(weight);
#pragma unroll 4
  for (std::int64_t p = t; p < packs; p += kThreads) {
    reinterpret_cast<Pack*>(y_row)[p] = normalized(x_packs[p], weight_packs[p], inverse_rms);
  }
  if (tail < cols) y_row[tail] = normalized(x_row[tail], weight[tail], inverse_rms);
}
// [two_reads]

constexpr int kTwoReadsThreads = 1024;

struct Rows {
  const float* x;
  std::int64_t x_stride;
  const float* weight;
  float* y;
  std::int64_t y_stride;
  std::int64_t rows;
  std::int64_t cols;
  float eps;
};

template <typename Pack, int kThreads, int kFloatsPerThread>
void launch_registers(const Rows& a, cudaStream_t stream) {
  static_assert(kFloatsPerThread % kWidth<Pack> == 0);
  rmsnorm_registers_kernel<Pack, kThreads, kFloatsPerThread / kWidth<Pack>>
      <<<static_cast<unsigned int>(a.rows), kThreads, 0, stream>>>(
          a.x, a.x_stride, a.weight, a.y, a.y_stride, static_cast<int>(a.cols), a.eps);
  NORMLAB_CHECK_LAUNCH();
}

template <typename Pack>
void launch_two_reads(const Rows& a, cudaStream_t stream) {
  rmsnorm_two_reads_kernel<Pack, kTwoReadsThreads>
      <<<static_cast<unsigned int>(a.rows), kTwoReadsThreads, 0, stream>>>(
          a.x, a.x_stride, a.weight, a.y, a.y_stride, a.cols, a.eps);
  NORMLAB_CHECK_LAUNCH();
}

// [configurations]
// threads x floats per thread = the widest row a configuration holds. 32 floats (8 float4)
// per thread for wide rows; fewer threads for narrower rows, so that few sit idle. 256 threads
// capped at 64 registers give 4 blocks per SM, so many rows are in flight at once and a large
// batch's last wave is a small part of its time (the lesson page counts the waves).
template <typename Pack>
void launch_fused(const Rows& a, cudaStream_t stream) {
  static_assert(384 * 32 == kMaxRegisterCols);
  if (a.cols <= 2048) return launch_registers<Pack, 128, 16>(a, stream);
  if (a.cols <= 4096) return launch_registers<Pack, 256, 16>(a, stream);
  if (a.cols <= 8192) return launch_registers<Pack, 256, 32>(a, stream);
  if (a.cols <= kMaxRegisterCols) return launch_registers<Pack, 384, 32>(a, stream);
  launch_two_reads<Pack>(a, stream);
}
// [configurations]

// [alignment]
// Every row of x and y starts 16-byte aligned, and so does the weight.
bool rows_are_16_byte_aligned(const Rows& a) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return aligned(a.x) && aligned(a.y) && aligned(a.weight) && a.x_stride % 4 == 0 &&
         a.y_stride % 4 == 0;
}
// [alignment]

void validate_rows(const char* fn, const Rows& a) {
  validate_rmsnorm_arguments(fn, a.x, a.x_stride, a.weight, a.y, a.y_stride, a.rows, a.cols, a.eps);
  validate_one_block_per_row(fn, a.rows);
}

}  // namespace

// [launcher]
void rmsnorm_fused(const float* x, std::int64_t x_stride, const float* weight, float* y,
                   std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                   cudaStream_t stream) {
  const Rows a{x, x_stride, weight, y, y_stride, rows, cols, eps};
  validate_rows("ch04::rmsnorm_fused", a);
  if (rows == 0) return;
  if (rows_are_16_byte_aligned(a)) {
    launch_fused<float4>(a, stream);
  } else {
    launch_fused<float>(a, stream);
  }
}
// [launcher]

void rmsnorm_two_reads(const float* x, std::int64_t x_stride, const float* weight, float* y,
                       std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                       cudaStream_t stream) {
  const Rows a{x, x_stride, weight, y, y_stride, rows, cols, eps};
  validate_rows("ch04::rmsnorm_two_reads", a);
  if (rows == 0) return;
  if (rows_are_16_byte_aligned(a)) {
    launch_two_reads<float4>(a, stream);
  } else {
    launch_two_reads<float>(a, stream);
  }
}

}  // namespace normlab::ch04
