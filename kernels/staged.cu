// SPDX-License-Identifier: Apache-2.0
// The staged family (chapter 13 adds it to the tuner's space; its configurations are chapter
// 09's table's): one row per block, as the slim family's, kept in shared memory instead of
// registers.
//
// A row held in registers takes its block's registers with it, and wide rows take many: a row of
// 2560 chunks (10240 fp32 columns) is 10240 registers of data alone, spread over threads that each
// also keep their indices and sums under a cap of 64 to 128 registers, so an SM holds one or two
// such rows, and a batch of a few hundred rows runs in two waves. Kept in shared memory (up to
// 227 KB a block, 228 KB an SM), the same row leaves each thread a few dozen registers, and an SM
// holds as many rows as its shared memory takes: five of 40 KB. The row comes by cp.async, from
// global memory straight into shared memory, every chunk of it requested at once with no register
// waiting for it.
//
// Each thread copies, reduces and normalises the same chunks (v * blockDim.x + threadIdx.x): a
// thread reads only what it copied itself, once its own copies have landed, so no barrier guards
// the stage, and the next row's copies may overwrite it as soon as the thread has normalised its
// chunks. It takes the calls the slim family takes (slim_row.cuh) and does their arithmetic, step
// for step.
#include <cuda_pipeline.h>

#include <string>

#include "configured_launch.cuh"
#include "normlab/check.hpp"
#include "normlab/kernel_attributes.hpp"
#include "slim_row.cuh"

namespace normlab::kernels::configured {

using device::same_bits;
using device::Vector;

namespace {

// A chunk of the stage, read anew at each use: a plain read the compiler may keep in registers
// from one pass over the row to the next, which is the row in registers again (and spills under
// the cap). The volatile read keeps a pass's registers to the chunks it is working on.
__device__ __forceinline__ uint4 read_stage(const uint4* at) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(at))));
  return v;
}

// A chunk written back to the stage (add + norm's h over x), volatile as read_stage is, so that
// the compiler keeps it before the reads that follow it: a plain store it could move past them.
__device__ __forceinline__ void write_stage(uint4* at, uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(at))),
               "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}

// [staged]
template <typename T, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre, bool kAdd>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) norm_staged(const Tensors<T, T> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  extern __shared__ uint4 stage[];  // the row's chunks (h); for add + norm the residual's after
  const int chunks = static_cast<int>(t.cols / kWidth);
  const Slice slice = block_slice();
  const Vector<T> zero = same_bits<Vector<T>>(make_uint4(0u, 0u, 0u, 0u));
  // This thread's v-th chunk of the row, from the stage; past the row zero, as row_statistics
  // expects.
  auto staged = [&](int v) {
    const int c = slice.offset + v * slice.stride;
    return c < chunks ? same_bits<Vector<T>>(read_stage(&stage[c])) : zero;
  };
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    const T* x = t.x + r * t.x_stride;
    const T* residual_in = kAdd ? t.residual + r * t.residual_stride : nullptr;
    T* y = t.y + r * t.y_stride;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const int c = slice.offset + v * slice.stride;
      if (c >= chunks) continue;
      __pipeline_memcpy_async(&stage[c], x + c * kWidth, sizeof(uint4));
      if constexpr (kAdd) {
        __pipeline_memcpy_async(&stage[chunks + c], residual_in + c * kWidth, sizeof(uint4));
      }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);  // this thread's copies have landed
    if constexpr (kAdd) {
      T* residual_out = t.residual_out + r * t.residual_out_stride;
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        const int c = slice.offset + v * slice.stride;
        if (c >= chunks) continue;
        const Vector<T> h = rounded_sum(same_bits<Vector<T>>(read_stage(&stage[c])),
                                        same_bits<Vector<T>>(read_stage(&stage[chunks + c])));
        device::store_vector(residual_out + c * kWidth, h);
        write_stage(&stage[c], same_bits<uint4>(h));
      }
    }
    const Statistics s = row_statistics<kCentre, true, kVectors>(
        staged, slice, 0, t.cols, t.eps, [](float v) { return device::block_sum(v); });
    write_statistics(t, r, s, kCentre, slice);
    // Four chunks at a time: unrolled whole, every chunk's parameters would be loaded at once,
    // as many registers as the row itself.
#pragma unroll 4
    for (int v = 0; v < kVectors; ++v) {
      const int c = slice.offset + v * slice.stride;
      if (c >= chunks) continue;
      const Vector<T> w = load_row_vector(t.weight + c * kWidth);
      const Vector<T> b = kCentre ? load_row_vector(t.bias + c * kWidth) : zero;
      normalise_slim<T, kCentre>(y + c * kWidth, s, staged(v), w, b);
    }
  }
}
// [staged]

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_staged(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream) {
  const char* fn = "kernels::configured::staged";
  with_slim_config<Kind::staged, kCentre, kAdd>(t, choice.config, fn, [&]<int kConfig>() {
    constexpr Config c = kConfigs[kConfig];
    const auto kernel = norm_staged<T, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd>;
    const std::int64_t chunks = t.cols / Vector<T>::kWidth;
    const std::string refusal = staged_refusal(chunks, kAdd);
    check_argument(refusal.empty(), fn, "cols",
                   [&] { return std::string(c.name) + " " + refusal; });
    const auto bytes = static_cast<std::size_t>(staged_bytes(chunks, kAdd));
    // Beyond 48 KB in all (block_sum's static shared memory too) a kernel must be allowed its
    // dynamic shared memory first, on each device it runs on (asked once a device and size).
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), bytes);
    kernel<<<choice.blocks, choice.threads, bytes, stream>>>(t);
  });
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CONFIGURED_STAGED(T, P, kCentre, kAdd)                                  \
  template void launch_staged<T, P, kCentre, kAdd>(const Tensors<T, P>&, const Choice&, \
                                                   cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_CONFIGURED_STAGED)

}  // namespace normlab::kernels::configured
