// SPDX-License-Identifier: Apache-2.0
// Chapter 10, a row over the whole GPU.
//
// A row wider than a cluster holds (512 KiB) can still fit on chip: an H100's 132 SMs have
// 33 MB of registers and 30 MB of shared memory between them, however large the tensor. So
// every block of the GPU takes a part of one row, in registers and, past them, in shared
// memory; the blocks combine their partial moments through global memory behind a grid-wide
// barrier; and each block normalises its part from where it holds it. x is read once however
// many rows the tensor has; rows are taken one after another.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>

#include "launch.cuh"
#include "moments.cuh"
#include "normlab/check.hpp"

namespace normlab::ch10 {

namespace {

namespace cg = cooperative_groups;
using ch07::chunk_start;
using device::same_bits;

// The most vectors a thread keeps in shared memory: 56 x 256 threads x 16 bytes is 224 KiB,
// about all of an H100 SM's 227 KiB.
constexpr int kMostStashVectors = 56;

// Vectors of the stash loaded together where they pass through registers (add + norm, rows off
// the 16-byte grid); 4 spilled.
constexpr int kStashBatch = 2;

// An fp32 norm (no add) of rows on the 16-byte grid keeps 8 vectors a thread in registers, and
// two blocks fit an SM (128 registers a thread). Any other call keeps 4, and one block must
// fit: element-by-element edges, the residual, or 16-bit elements widened to fp32 one by one
// need more than 128 registers with 8 vectors (they spilled).
template <typename T, typename P, bool kAdd, bool kAligned>
constexpr bool kLean = kAligned && !kAdd && std::is_same_v<T, float> && std::is_same_v<P, float>;
template <typename T, typename P, bool kAdd, bool kAligned>
constexpr int kRegisterVectors = kLean<T, P, kAdd, kAligned> ? 8 : 4;
template <typename T, typename P, bool kAdd, bool kAligned>
constexpr int kMinBlocks = kLean<T, P, kAdd, kAligned> ? 2 : 1;

// [whole_gpu_kernel]
// Every block holds part of row r: thread t of block b keeps chunks v * G + b * blockDim.x + t
// (G the grid's threads), the first kVectors in registers and the next stash_vectors in shared
// memory. Per row: load (x read once; add + norm stores h), the block's moments,
// one grid-wide barrier, the row's moments merged from every block's, normalise and store.
// The parts of row r go to half (r % 2) of the scratch: a block writes that half again only
// for row r + 2, after the barrier of row r + 1, which no block passes before every block has
// merged row r. In place is safe: every load of row r precedes the barrier, every store
// follows it.
template <typename T, typename P, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(kWholeGpuThreads, (kMinBlocks<T, P, kAdd, kAligned>))
    norm_whole_gpu(const Tensors<T, P> t, Moments* parts, int stash_vectors) {
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr int kVectors = kRegisterVectors<T, P, kAdd, kAligned>;
  constexpr bool kCopyAsync = kAligned && !kAdd;
  extern __shared__ float4 shared_words[];
  const cg::grid_group grid = cg::this_grid();
  const ch07::Slice slice{static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x),
                          static_cast<int>(gridDim.x * blockDim.x)};
  // Thread t's s-th stashed vector, as 16 bytes: read whole, so a 16-bit row's stash moves as
  // one 16-byte access instead of one per element.
  uint4* stash_words = reinterpret_cast<uint4*>(shared_words);
  auto stash_at = [&](int s) -> uint4& { return stash_words[s * blockDim.x + threadIdx.x]; };
  auto stashed = [&](int s) { return same_bits<Vector<T>>(stash_at(s)); };
  for (std::int64_t r = 0; r < t.rows; ++r) {
    const auto row = ch07::row_of<kAligned>(t, r);
    auto load = [&](int v) {
      const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
      const Vector<T> x = device::load_chunk<kAligned>(row.x, first, t.cols, true);
      return kAdd ? ch07::add_residual(t, row, first, x) : x;
    };
    if constexpr (kCopyAsync) {
      // Rows on the 16-byte grid with nothing to add: each stash vector goes from global to
      // shared memory by an asynchronous copy (cp.async), all of them in flight at once and none
      // through registers. A chunk past the row is not copied; its stale slot is never used.
      for (int s = 0; s < stash_vectors; ++s) {
        const std::int64_t first = chunk_start(slice.chunk(kVectors + s), kWidth, row.lead);
        if (first < t.cols) __pipeline_memcpy_async(&stash_at(s), row.x + first, sizeof(uint4));
      }
      __pipeline_commit();
    }
    // Else the stash first, in batches: a batch's loads are all in flight before its first
    // store to shared memory waits for one (a batch's registers are free again before the
    // row's own).
    for (int first_stashed = 0; !kCopyAsync && first_stashed < stash_vectors;
         first_stashed += kStashBatch) {
      Vector<T> batch[kStashBatch];
#pragma unroll
      for (int i = 0; i < kStashBatch; ++i) {
        if (first_stashed + i < stash_vectors) batch[i] = load(kVectors + first_stashed + i);
      }
#pragma unroll
      for (int i = 0; i < kStashBatch; ++i) {
        if (first_stashed + i < stash_vectors)
          stash_at(first_stashed + i) = same_bits<uint4>(batch[i]);
      }
    }

    Vector<T> h[kVectors];
#pragma unroll
    for (int v = 0; v < kVectors; ++v)
      h[v] = load(v);
    if constexpr (kCopyAsync) __pipeline_wait_prior(0);  // this thread's copies have landed

    Moments m = registers_moments<kCentre, kAligned>(h, slice, row.lead, t.cols);
    for (int s = 0; s < stash_vectors; ++s) {
      const std::int64_t first = chunk_start(slice.chunk(kVectors + s), kWidth, row.lead);
      m = add_chunk<kCentre, kAligned>(m, stashed(s), first, t.cols);
    }
    // [grid_exchange]
    m = device::block_reduce(m, device::welford_merge);
    Moments* half = parts + (r % 2) * gridDim.x;
    if (threadIdx.x == 0) half[blockIdx.x] = m;
    grid.sync();
    const ch07::Statistics stats =
        statistics_of<kCentre>(merge_parts(half, gridDim.x), t.cols, t.eps);
    // [grid_exchange]

    ch07::write_statistics(t, r, stats, kCentre, slice);
#pragma unroll
    for (int v = 0; v < kVectors; ++v)
      ch07::normalise_and_store(t, row, chunk_start(slice.chunk(v), kWidth, row.lead), stats, h[v]);
    for (int s = 0; s < stash_vectors; ++s) {
      const std::int64_t first = chunk_start(slice.chunk(kVectors + s), kWidth, row.lead);
      ch07::normalise_and_store(t, row, first, stats, stashed(s));
    }
  }
}
// [whole_gpu_kernel]

// How many blocks of the kernel each SM holds at once with s vectors a thread in shared
// memory, for s = 0 .. kMostStashVectors (0 once they no longer fit), and the SMs: asked of
// the occupancy calculator once per kernel.
struct Residency {
  int register_vectors = 0;  // kRegisterVectors of the kernel
  int sms = 0;
  std::array<int, kMostStashVectors + 1> blocks_per_sm{};
};

std::size_t stash_bytes(int stash_vectors) {
  return static_cast<std::size_t>(stash_vectors) * kWholeGpuThreads * sizeof(float4);
}

template <typename Kernel>
Residency residency_of(Kernel kernel, int register_vectors) {
  Residency r;
  r.register_vectors = register_vectors;
  int device = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, device));
  // A block's shared memory is the kernel's static part (the block reduction's slots) plus the
  // stash; the stash may take what is left of the most a block may opt in to.
  int most_shared = 0;
  NORMLAB_CHECK(
      cudaDeviceGetAttribute(&most_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attributes{};
  NORMLAB_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const int most_stash = most_shared - static_cast<int>(attributes.sharedSizeBytes);
  NORMLAB_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most_stash));
  for (int s = 0; s <= kMostStashVectors; ++s) {
    if (stash_bytes(s) > static_cast<std::size_t>(most_stash)) break;
    NORMLAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm[s], kernel,
                                                                kWholeGpuThreads, stash_bytes(s)));
  }
  return r;
}

// One kernel's residency, asked once (on the GPU current at the first call).
template <typename T, typename P, bool kCentre, bool kAdd, bool kAligned>
const Residency& residency() {
  static const Residency r = residency_of(norm_whole_gpu<T, P, kCentre, kAdd, kAligned>,
                                          kRegisterVectors<T, P, kAdd, kAligned>);
  return r;
}

// With s vectors a thread in shared memory: the most blocks the launch may have (all resident
// at once, and within the scratch), and the chunks each block holds.
std::int64_t launchable_blocks(const Residency& r, int s) {
  return std::min<std::int64_t>(std::int64_t{r.blocks_per_sm[s]} * r.sms, kMostWholeGpuBlocks);
}
std::int64_t chunks_per_block(const Residency& r, int s) {
  return std::int64_t{kWholeGpuThreads} * (r.register_vectors + s);
}

// The fewest vectors in shared memory (and so the most blocks) that hold a row of chunks, all
// blocks resident at once: {stash vectors, blocks}, or {-1, 0} when no stash is enough.
std::pair<int, std::int64_t> layout_for(const Residency& r, std::int64_t chunks) {
  for (int s = 0; s <= kMostStashVectors; ++s) {
    const std::int64_t blocks = (chunks + chunks_per_block(r, s) - 1) / chunks_per_block(r, s);
    if (blocks <= launchable_blocks(r, s)) return {s, blocks};
  }
  return {-1, 0};
}

std::int64_t capacity(const Residency& r) {
  std::int64_t most = 0;
  for (int s = 0; s <= kMostStashVectors; ++s)
    most = std::max(most, launchable_blocks(r, s) * chunks_per_block(r, s));
  return most;
}

template <typename T, typename P, bool kCentre, bool kAdd>
const Residency& residency(bool aligned) {
  return aligned ? residency<T, P, kCentre, kAdd, true>() : residency<T, P, kCentre, kAdd, false>();
}

}  // namespace

std::size_t whole_gpu_scratch_bytes() {
  return 2 * std::size_t{kMostWholeGpuBlocks} * sizeof(Moments);
}

template <typename T, typename P, bool kCentre, bool kAdd>
std::int64_t whole_gpu_chunks(bool aligned) {
  return capacity(residency<T, P, kCentre, kAdd>(aligned));
}

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_whole_gpu(const Tensors<T, P>& t, bool aligned, std::int64_t chunks, Scratch scratch,
                      cudaStream_t stream) {
  const Residency& resident = residency<T, P, kCentre, kAdd>(aligned);
  const auto [stash_vectors, blocks] = layout_for(resident, chunks);
  check_argument(stash_vectors >= 0, "ch10::whole_gpu", "cols",
                 "is too wide for the whole GPU: a row of " + std::to_string(chunks) +
                     " chunks, the GPU holds " + std::to_string(capacity(resident)));
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(blocks));
  config.blockDim = dim3(kWholeGpuThreads);
  config.dynamicSmemBytes = stash_bytes(stash_vectors);
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  auto* parts = static_cast<Moments*>(scratch.data);
  if (aligned) {
    NORMLAB_CHECK(cudaLaunchKernelEx(&config, norm_whole_gpu<T, P, kCentre, kAdd, true>, t, parts,
                                     stash_vectors));
  } else {
    NORMLAB_CHECK(cudaLaunchKernelEx(&config, norm_whole_gpu<T, P, kCentre, kAdd, false>, t, parts,
                                     stash_vectors));
  }
}

#define NORMLAB_CH10_WHOLE_GPU(T, P, kCentre, kAdd)                                             \
  template std::int64_t whole_gpu_chunks<T, P, kCentre, kAdd>(bool);                            \
  template void launch_whole_gpu<T, P, kCentre, kAdd>(const Tensors<T, P>&, bool, std::int64_t, \
                                                      Scratch, cudaStream_t);
NORMLAB_CH07_FOR_EACH_CALL(NORMLAB_CH10_WHOLE_GPU)

}  // namespace normlab::ch10
