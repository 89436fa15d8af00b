// SPDX-License-Identifier: Apache-2.0
// The whole-GPU family (taught in chapter 10): a row over the whole GPU.
//
// A row wider than a cluster holds (512 KiB) can still fit on chip: an H100's 132 SMs have
// 33 MB of registers and 30 MB of shared memory between them, however large the tensor. So
// every block of the GPU takes a part of one row, in registers and, past them, in shared
// memory; the blocks combine their partial moments through global memory behind a grid-wide
// barrier; and each block normalises its part from where it holds it. x is read once however
// many rows the tensor has; rows are taken one after another. Where the row fits the registers
// alone (fp32, norm_whole_gpu_held), shared memory holds the parameters instead, read from DRAM
// once for all the rows.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <cuda/annotated_ptr>

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>

#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "part_moments.cuh"
#include "spread_launch.cuh"

namespace normlab::kernels::spread {

namespace {

namespace cg = cooperative_groups;
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
constexpr bool kLean = kAligned&& kLeanWholeGpu<T, P, kAdd>;
template <typename T, typename P, bool kAdd, bool kAligned>
constexpr int kRegisterVectors = kLean<T, P, kAdd, kAligned> ? 8 : 4;
template <typename T, typename P, bool kAdd, bool kAligned>
constexpr int kMinBlocks = kLean<T, P, kAdd, kAligned> ? 2 : 1;

// A thread's chunks of a row over the whole grid: chunk v * G + blockIdx.x * blockDim.x +
// threadIdx.x (G the grid's threads).
__device__ __forceinline__ Slice grid_slice() {
  return {static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x),
          static_cast<int>(gridDim.x * blockDim.x)};
}

// The thread's s-th slot of the block's dynamic shared memory, as 16 bytes: read whole, so a
// 16-bit row's stash moves as one 16-byte access instead of one per element.
__device__ __forceinline__ uint4& stash_slot(int s) {
  extern __shared__ float4 shared_words[];
  return reinterpret_cast<uint4*>(shared_words)[s * blockDim.x + threadIdx.x];
}

// [whole_gpu_copies]
// The kernel's copies of x into shared memory (cp.async) tell L2 to evict their lines first:
// every line of x is read once, while the parameters are read again for every row and should
// be what L2 keeps. CCCL's cuda::ptx has no cp.async with a cache policy, so the instruction is
// written out; the policy is cuda::access_property's.
// Before sm_80 there is neither cp.async nor an L2 cache policy, and __pipeline_memcpy_async
// copies through registers.
__device__ __forceinline__ void copy_evict_first(uint4* shared, const void* global) {
#if __CUDA_ARCH__ >= 800
  const auto policy =
      static_cast<std::uint64_t>(cuda::access_property(cuda::access_property::streaming{}));
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(address),
               "l"(global), "l"(policy)
               : "memory");
#else
  __pipeline_memcpy_async(shared, global, sizeof(uint4));
#endif
}
// [whole_gpu_copies]

// [normalise_group]
// An fp32 chunk's weight (1 without a weight) and bias (0 without one), read with L2 policy
// Property; a chunk past the row (in_row false) reads nothing.
template <typename Property>
__device__ __forceinline__ void load_scale_shift(const Tensors<float, float>& t, std::int64_t first,
                                                 bool in_row, float4& scale, float4& shift) {
  using Parameters = cuda::annotated_ptr<const float4, Property>;
  scale = in_row && t.weight != nullptr
              ? Parameters(reinterpret_cast<const float4*>(t.weight + first))[0]
              : make_float4(1.0f, 1.0f, 1.0f, 1.0f);
  shift = in_row && t.bias != nullptr
              ? Parameters(reinterpret_cast<const float4*>(t.bias + first))[0]
              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// The weight as a scale: + 1 for (1 + w), as loaded otherwise (row_norm.cuh's plus_one).
__device__ __forceinline__ float4 scale_of(float4 w, bool plus_one) {
  return plus_one ? make_float4(w.x + 1.0f, w.y + 1.0f, w.z + 1.0f, w.w + 1.0f) : w;
}

// (x - mean) * rstd * scale + shift for the 4 floats of a chunk: every fp32 whole-GPU kernel's
// normalisation.
__device__ __forceinline__ float4 normalised(float4 x, Statistics s, float4 scale, float4 shift) {
  return make_float4(
      (x.x - s.mean) * s.rstd * scale.x + shift.x, (x.y - s.mean) * s.rstd * scale.y + shift.y,
      (x.z - s.mean) * s.rstd * scale.z + shift.z, (x.w - s.mean) * s.rstd * scale.w + shift.w);
}

// The lean kernel's rows (fp32, on the 16-byte grid) are normalised kGroup chunks at a time:
// every weight and bias load of the group is issued before its first store. Chunk by chunk
// (chapter 07's normalise_and_store) a chunk's parameter loads wait behind the previous
// chunk's store, which the compiler cannot prove apart from them; over a whole GPU's row the
// parameters come from DRAM, so each chunk paid a DRAM latency in turn. The loads ask L2 to
// keep the parameters (evict last) and the stores to let y go first: x and y are touched once
// a row, the parameters again by every row. A chunk at or past the row's end loads and stores
// nothing. fp32 add + norm on the grid takes the same code a chunk at a time (kGroup 1); other
// kernels normalise chunk by chunk with chapter 07's normalise_and_store.
template <int kGroup, typename T, typename P, bool kAligned>
__device__ void normalise_group(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                const std::int64_t (&first)[kGroup], Statistics s,
                                const Vector<T> (&h)[kGroup]) {
  if constexpr (kAligned && std::is_same_v<T, float> && std::is_same_v<P, float>) {
    using Streamed = cuda::annotated_ptr<float4, cuda::access_property::streaming>;
    float4 scale[kGroup], shift[kGroup];
#pragma unroll
    for (int g = 0; g < kGroup; ++g)
      load_scale_shift<cuda::access_property::persisting>(t, first[g], first[g] < t.cols, scale[g],
                                                          shift[g]);
    const bool plus_one = t.weight != nullptr && t.weight_plus_one;
#pragma unroll
    for (int g = 0; g < kGroup; ++g) {
      if (first[g] >= t.cols) continue;
      Streamed(reinterpret_cast<float4*>(row.y + first[g]))[0] =
          normalised(same_bits<float4>(h[g]), s, scale_of(scale[g], plus_one), shift[g]);
    }
  } else {
#pragma unroll
    for (int g = 0; g < kGroup; ++g)
      normalise_and_store(t, row, first[g], s, h[g]);
  }
}
// [normalise_group]

// Every block holds part of row r: thread t of block b keeps chunks v * G + b * blockDim.x + t
// (G the grid's threads), the first kVectors in registers and the next stash_vectors in shared
// memory. Per row: load (x read once; add + norm stores h), the block's moments,
// one grid-wide barrier, the row's moments merged from every block's, normalise and store.
// The parts of row r go to half (r % 2) of the scratch: a block writes that half again only
// for row r + 2, after the barrier of row r + 1, which no block passes before every block has
// merged row r. In place is safe: a block's loads and copies of row r have all landed before it
// reaches the barrier of row r, and every store of row r follows that barrier.
template <typename T, typename P, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(kWholeGpuThreads, (kMinBlocks<T, P, kAdd, kAligned>))
    norm_whole_gpu(const Tensors<T, P> t, Moments* parts, int stash_vectors) {
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr int kVectors = kRegisterVectors<T, P, kAdd, kAligned>;
  constexpr bool kCopyAsync = kAligned && !kAdd;
  // The lean kernel (two blocks an SM) has the registers to batch the merge's loads (4 parts a
  // lane in flight) and to normalise four chunks together; the others keep one and one, which
  // leaves their register counts, and so their blocks an SM, as they were.
  constexpr int kMergeBatch = kLean<T, P, kAdd, kAligned> ? 4 : 1;
  constexpr int kGroup = kLean<T, P, kAdd, kAligned> ? 4 : 1;
  const cg::grid_group grid = cg::this_grid();
  const Slice slice = grid_slice();
  // [whole_gpu_load]
  // Row r's stash (its vectors from kVectors on), copied into shared memory by cp.async.
  auto copy_stash = [&](const Row<T, P, kAligned>& row) {
    for (int v = kVectors; v < kVectors + stash_vectors; ++v) {
      const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
      if (first < t.cols) copy_evict_first(&stash_slot(v - kVectors), row.x + first);
    }
    __pipeline_commit();
  };
  for (std::int64_t r = 0; r < t.rows; ++r) {
    const auto row = row_of<kAligned>(t, r);
    auto stashed = [&](int s) { return same_bits<Vector<T>>(stash_slot(s)); };
    auto load = [&](int v) {
      const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
      const Vector<T> x = device::load_chunk<kAligned>(row.x, first, t.cols, true);
      return kAdd ? add_residual(t, row, first, x) : x;
    };
    Vector<T> h[kVectors];
    if constexpr (kCopyAsync) {
      // The stash by cp.async, the register part by plain loads, all in flight at once. A
      // chunk past the row is not copied; its stale slot is never used.
      copy_stash(row);
#pragma unroll
      for (int v = 0; v < kVectors; ++v)
        h[v] = load(v);
      __pipeline_wait_prior(0);
    } else {
      // The stash first, in batches: a batch's loads are all in flight before its first
      // store to shared memory waits for one (a batch's registers are free again before the
      // row's own).
      for (int first_stashed = 0; first_stashed < stash_vectors; first_stashed += kStashBatch) {
        Vector<T> batch[kStashBatch];
#pragma unroll
        for (int i = 0; i < kStashBatch; ++i) {
          if (first_stashed + i < stash_vectors) batch[i] = load(kVectors + first_stashed + i);
        }
#pragma unroll
        for (int i = 0; i < kStashBatch; ++i) {
          if (first_stashed + i < stash_vectors)
            stash_slot(first_stashed + i) = same_bits<uint4>(batch[i]);
        }
      }
#pragma unroll
      for (int v = 0; v < kVectors; ++v)
        h[v] = load(v);
    }

    Moments m = registers_moments<kCentre, kAligned>(h, slice, row.lead, t.cols);
    for (int s = 0; s < stash_vectors; ++s) {
      const std::int64_t first = chunk_start(slice.chunk(kVectors + s), kWidth, row.lead);
      m = add_chunk<kCentre, kAligned>(m, stashed(s), first, t.cols);
    }
    // [whole_gpu_load]
    // [grid_exchange]
    m = device::block_reduce(m, device::welford_merge);
    Moments* half = parts + (r % 2) * gridDim.x;
    if (threadIdx.x == 0) half[blockIdx.x] = m;
    grid.sync();
    const Statistics stats =
        statistics_of<kCentre>(block_merge_parts<kMergeBatch>(half, gridDim.x), t.cols, t.eps);
    // [grid_exchange]

    write_statistics(t, r, stats, kCentre, slice);
    static_assert(kVectors % kGroup == 0);
#pragma unroll
    for (int v = 0; v < kVectors; v += kGroup) {
      std::int64_t first[kGroup];
      Vector<T> held[kGroup];
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        first[g] = chunk_start(slice.chunk(v + g), kWidth, row.lead);
        held[g] = h[v + g];
      }
      normalise_group(t, row, first, stats, held);
    }
    for (int s = 0; s < stash_vectors; s += kGroup) {
      std::int64_t first[kGroup];
      Vector<T> held[kGroup];
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {  // past the stash: first = cols, nothing moves
        const bool stashed_here = s + g < stash_vectors;
        first[g] =
            stashed_here ? chunk_start(slice.chunk(kVectors + s + g), kWidth, row.lead) : t.cols;
        held[g] = stashed(stashed_here ? s + g : s);
      }
      normalise_group(t, row, first, stats, held);
    }
  }
}

// Rows in pairs: the lean calls (fp32 rows on the 16-byte grid, nothing to add) of two rows or
// more, where the held form does not take the row. What changed from the lean kernel: it read
// the parameters once a row, and for rows this wide they come from DRAM every time (LayerNorm's
// weight and bias are as many bytes as two rows of x). Here row r is held on chip as the lean
// kernel holds it, and row r + 1 is read once, for its moments only, with L2 asked to keep it;
// one grid barrier serves both rows; then each chunk's weight and bias are read once for both
// rows, row r + 1 is read again (from L2, mostly), and both rows are stored. A pair reads the
// parameters once where the lean kernel read them twice, and waits at one barrier, not two.
// An odd last row goes alone (pair false: no second row is read or written). The parts of
// pair p go to half (p % 2) of the scratch's four rows of parts: a block writes that half
// again only for pair p + 2, after the barrier of pair p + 1, which no block passes before
// every block has merged pair p. In place is safe: a thread reads and writes only its own
// chunks, and reads row r + 1's chunk before it writes it. One row alone has no second row to
// share the parameters and the barrier with, so the lean kernel keeps it. Prefetching row r + 1
// into L2 at the start was tried and dropped. Chapter 10's page and worklog have the
// comparisons.
inline constexpr int kPairVectors = 8;  // in registers, as the lean kernel (two blocks an SM)

template <bool kCentre>
__global__ void __launch_bounds__(kWholeGpuThreads, 2)
    norm_whole_gpu_pairs(const Tensors<float, float> t, Moments* parts, int stash_vectors) {
  constexpr int kGroup = 4;  // chunks normalised together, their loads all in flight at once
  using Kept = cuda::annotated_ptr<const float4, cuda::access_property::persisting>;
  using Once = cuda::annotated_ptr<const float4, cuda::access_property::streaming>;
  using Streamed = cuda::annotated_ptr<float4, cuda::access_property::streaming>;
  const cg::grid_group grid = cg::this_grid();
  const Slice slice = grid_slice();
  const int held = kPairVectors + stash_vectors;  // vectors of a row a thread holds
  auto first_of = [&](int v) { return chunk_start(slice.chunk(v), 4, 0); };
  for (std::int64_t r = 0; r < t.rows; r += 2) {
    const bool pair = r + 1 < t.rows;
    const auto row = row_of<true>(t, r);
    const auto next = row_of<true>(t, pair ? r + 1 : r);
    // Row r on chip: the stash by cp.async, the rest into registers, all in flight at once.
    for (int v = kPairVectors; v < held; ++v) {
      if (first_of(v) < t.cols)
        copy_evict_first(&stash_slot(v - kPairVectors), row.x + first_of(v));
    }
    __pipeline_commit();
    Vector<float> h[kPairVectors];
#pragma unroll
    for (int v = 0; v < kPairVectors; ++v)
      h[v] = device::load_chunk<true>(row.x, first_of(v), t.cols, true);
    // [whole_gpu_pairs_pass]
    // Row r + 1's moments, kGroup chunks at a time; its lines stay in L2 for the second read.
    Moments next_moments{};
    for (int v = 0; pair && v < held; v += kGroup) {
      float4 x[kGroup];
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        x[g] = v + g < held && first_of(v + g) < t.cols
                   ? Kept(reinterpret_cast<const float4*>(next.x + first_of(v + g)))[0]
                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        if (v + g < held)
          next_moments = add_chunk<kCentre, true>(next_moments, same_bits<Vector<float>>(x[g]),
                                                  first_of(v + g), t.cols);
      }
    }
    __pipeline_wait_prior(0);  // this thread's copies of row r have landed
    Moments row_moments = registers_moments<kCentre, true>(h, slice, 0, t.cols);
    for (int s = 0; s < stash_vectors; ++s)
      row_moments = add_chunk<kCentre, true>(row_moments, same_bits<Vector<float>>(stash_slot(s)),
                                             first_of(kPairVectors + s), t.cols);
    row_moments = device::block_reduce(row_moments, device::welford_merge);
    next_moments = device::block_reduce(next_moments, device::welford_merge);
    Moments* half = parts + (r / 2 % 2) * 2 * gridDim.x;  // two rows' parts
    if (threadIdx.x == 0) {
      half[blockIdx.x] = row_moments;
      half[gridDim.x + blockIdx.x] = next_moments;
    }
    grid.sync();
    const Statistics s0 =
        statistics_of<kCentre>(block_merge_parts<4>(half, gridDim.x), t.cols, t.eps);
    const Statistics s1 =
        statistics_of<kCentre>(block_merge_parts<4>(half + gridDim.x, gridDim.x), t.cols, t.eps);
    write_statistics(t, r, s0, kCentre, slice);
    if (pair) write_statistics(t, r + 1, s1, kCentre, slice);
    const bool plus_one = t.weight != nullptr && t.weight_plus_one;
    // Chunks v to v + kGroup - 1 of both rows, x0 their values in row r: every load first.
    auto store_group = [&](int v, const float4(&x0)[kGroup]) {
      float4 scale[kGroup], shift[kGroup], x1[kGroup];
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        const std::int64_t first = first_of(v + g);
        const bool in_row = v + g < held && first < t.cols;
        load_scale_shift<cuda::access_property::streaming>(t, first, in_row, scale[g], shift[g]);
        x1[g] = in_row && pair ? Once(reinterpret_cast<const float4*>(next.x + first))[0]
                               : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int g = 0; g < kGroup; ++g) {
        const std::int64_t first = first_of(v + g);
        if (v + g >= held || first >= t.cols) continue;
        const float4 w = scale_of(scale[g], plus_one);
        Streamed(reinterpret_cast<float4*>(row.y + first))[0] = normalised(x0[g], s0, w, shift[g]);
        if (pair)
          Streamed(reinterpret_cast<float4*>(next.y + first))[0] =
              normalised(x1[g], s1, w, shift[g]);
      }
    };
    // [whole_gpu_pairs_pass]
    static_assert(kPairVectors % kGroup == 0);
#pragma unroll
    for (int v = 0; v < kPairVectors; v += kGroup) {
      float4 x0[kGroup];
#pragma unroll
      for (int g = 0; g < kGroup; ++g)
        x0[g] = same_bits<float4>(h[v + g]);
      store_group(v, x0);
    }
    for (int v = kPairVectors; v < held; v += kGroup) {
      float4 x0[kGroup];
#pragma unroll
      for (int g = 0; g < kGroup; ++g)  // past the stash: a slot of it, never stored
        x0[g] = same_bits<float4>(stash_slot(min(v + g, held - 1) - kPairVectors));
      store_group(v, x0);
    }
  }
}

// The held form: fp32 rows on the 16-byte grid, nothing to add, at least kHeldFewestVectors and
// at most kHeldVectors vectors a thread over every block the GPU holds at once. What changed
// from the lean kernel: there the parameters (for LayerNorm weight and bias, as many bytes as
// two rows) were read again for every row, and L2, with x and y streaming past, kept too few of
// them: Nsight Compute counted far more DRAM reads than the bytes model's. Here each
// thread puts the parameters under its chunks into shared memory once, before the first row,
// and reads them from there for every row; what does not fit (bias
// past its first kSharedShifts vectors) comes from L2, asked to keep it, loaded while the block
// waits at the barrier. Shared memory so no longer holds part of the row: the row lives in
// registers alone, and the next row is not copied on chip ahead of time but prefetched into L2
// (a 4 KiB bulk prefetch a vector a block, sm_90) once the block has read this one, so DRAM
// streams it while the block waits at the barrier and stores; the block then loads it from L2.
// Prefetched earlier (as soon as the row's loads are issued) or two rows ahead, two rows
// outgrow what L2 keeps; after the barrier, it helps RMSNorm and costs LayerNorm. Its DRAM reads
// so come close to the bytes model's; rows of fewer than kHeldFewestVectors vectors a thread
// stay with the lean kernel. Chapter 10's page and worklog have the comparisons.
constexpr int kHeldVectors = 16;
constexpr int kHeldFewestVectors = 6;  // fewer: the lean kernel (chapter 10's worklog)
constexpr int kSharedShifts = 11;      // 16 + 11 slots of 4 KiB a block: two blocks an H100 SM

__device__ __forceinline__ void prefetch_to_l2(const void* global, unsigned int bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(global), "r"(bytes) : "memory");
#endif
}

template <bool kCentre>
__global__ void __launch_bounds__(kWholeGpuThreads, 2)
    norm_whole_gpu_held(const Tensors<float, float> t, Moments* parts, int vectors) {
  using Kept = cuda::annotated_ptr<const float4, cuda::access_property::persisting>;
  extern __shared__ float4 shared_words[];
  float4* scales = shared_words;                              // kHeldVectors slots a thread
  float4* shifts = shared_words + kHeldVectors * blockDim.x;  // kSharedShifts slots a thread
  const cg::grid_group grid = cg::this_grid();
  // Chunk v of the thread is chunk v * stride + offset of the row (chunks as float4), in 32
  // bits: a row this form holds has fewer than 2^31 chunks.
  const int offset = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int stride = static_cast<int>(gridDim.x * blockDim.x);
  const int chunks = static_cast<int>(t.cols / 4);
  // [whole_gpu_held_rows]
  auto slot = [&](int v) { return v * kWholeGpuThreads + static_cast<int>(threadIdx.x); };
  const auto* weight = reinterpret_cast<const float4*>(t.weight);
  const auto* bias = reinterpret_cast<const float4*>(t.bias);
  for (int v = 0; v < vectors; ++v) {  // a thread fills and reads only its own slots
    const int c = v * stride + offset;
    if (c >= chunks) break;
    if (weight != nullptr) scales[slot(v)] = scale_of(Kept(weight + c)[0], t.weight_plus_one);
    if (bias != nullptr && v < kSharedShifts) shifts[slot(v)] = Kept(bias + c)[0];
  }
  for (std::int64_t r = 0; r < t.rows; ++r) {
    const auto* x = reinterpret_cast<const float4*>(t.x + r * t.x_stride);
    float4 h[kHeldVectors];
#pragma unroll
    for (int v = 0; v < kHeldVectors; ++v) {
      const int c = v * stride + offset;
      if (v < vectors && c < chunks) h[v] = __ldcs(x + c);  // evict first: read once
    }
    Moments m{};
#pragma unroll
    for (int v = 0; v < kHeldVectors; ++v) {
      if (v < vectors && v * stride + offset < chunks)
        m = add_chunk<kCentre, true>(m, same_bits<Vector<float>>(h[v]), 0, 1);
    }
    m = device::block_reduce(m, device::welford_merge);
    // Every thread of the block holds its chunks of row r: the block's chunks of row r + 1 into
    // L2, thread v asking for vector v's 256.
    const int prefetched =
        static_cast<int>(threadIdx.x) * stride + static_cast<int>(blockIdx.x * blockDim.x);
    if (r + 1 < t.rows && static_cast<int>(threadIdx.x) < vectors && prefetched < chunks) {
      const int count = min(chunks - prefetched, static_cast<int>(blockDim.x));
      prefetch_to_l2(x + t.x_stride / 4 + prefetched, static_cast<unsigned int>(count) * 16u);
    }
    float4 late_shifts[kHeldVectors - kSharedShifts];
#pragma unroll
    for (int i = 0; i < kHeldVectors - kSharedShifts; ++i) {
      const int c = (kSharedShifts + i) * stride + offset;
      late_shifts[i] = bias != nullptr && kSharedShifts + i < vectors && c < chunks
                           ? Kept(bias + c)[0]
                           : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    Moments* half = parts + (r % 2) * gridDim.x;  // as norm_whole_gpu
    if (threadIdx.x == 0) half[blockIdx.x] = m;
    grid.sync();
    const Statistics s = statistics_of<kCentre>(
        block_merge_parts_by_warps(half, static_cast<int>(gridDim.x)), t.cols, t.eps);
    write_statistics(t, r, s, kCentre, Slice{offset, stride});
    auto* y = reinterpret_cast<float4*>(t.y + r * t.y_stride);
#pragma unroll
    for (int v = 0; v < kHeldVectors; ++v) {
      const int c = v * stride + offset;
      if (v >= vectors || c >= chunks) continue;
      const float4 scale =
          weight != nullptr ? scales[slot(v)] : make_float4(1.0f, 1.0f, 1.0f, 1.0f);
      float4 shift = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (v >= kSharedShifts) {
        shift = late_shifts[v >= kSharedShifts ? v - kSharedShifts : 0];
      } else if (bias != nullptr) {
        shift = shifts[slot(v)];
      }
      __stcs(y + c, normalised(h[v], s, scale, shift));
    }
  }
  // [whole_gpu_held_rows]
}

// How many blocks of a kernel each SM holds at once with s vectors a thread in its stash (the
// held form: in its parameters' slots), for s = 0 .. kMostStashVectors (0 once they no longer
// fit), and the SMs: asked of the occupancy calculator once per kernel.
struct Residency {
  int register_vectors = 0;  // kRegisterVectors of the kernel
  int sms = 0;
  std::array<int, kMostStashVectors + 1> blocks_per_sm{};
};

// A block's dynamic shared memory with s vectors a thread in its stash.
std::size_t shared_bytes(int s) {
  return static_cast<std::size_t>(s) * kWholeGpuThreads * sizeof(float4);
}

template <typename Kernel>
Residency residency_of(Kernel kernel, int register_vectors) {
  Residency r;
  r.register_vectors = register_vectors;
  int device = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, device));
  // A block's shared memory is the kernel's static part (the block reduction's slots) plus the
  // dynamic part, which may take what is left of the most a block may opt in to.
  const int most_shared = most_shared_bytes_per_block();
  cudaFuncAttributes attributes{};
  NORMLAB_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const int most_dynamic = most_shared - static_cast<int>(attributes.sharedSizeBytes);
  NORMLAB_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most_dynamic));
  for (int s = 0; s <= kMostStashVectors; ++s) {
    if (shared_bytes(s) > static_cast<std::size_t>(most_dynamic)) break;
    NORMLAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm[s], kernel,
                                                                kWholeGpuThreads, shared_bytes(s)));
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
template <bool kCentre>
const Residency& pairs_residency() {
  static const Residency r = residency_of(norm_whole_gpu_pairs<kCentre>, kPairVectors);
  return r;
}

// With s vectors a thread in the stash: the most blocks the launch may have (all resident
// at once, and within the scratch), and the chunks each block holds.
std::int64_t launchable_blocks(const Residency& r, int s) {
  return std::min<std::int64_t>(std::int64_t{r.blocks_per_sm[s]} * r.sms, kMostWholeGpuBlocks);
}
std::int64_t chunks_per_block(const Residency& r, int s) {
  return std::int64_t{kWholeGpuThreads} * (r.register_vectors + s);
}

std::int64_t capacity(const Residency& r) {
  std::int64_t most = 0;
  for (int s = 0; s <= kMostStashVectors; ++s)
    most = std::max(most, launchable_blocks(r, s) * chunks_per_block(r, s));
  return most;
}

// How a row of chunks is laid out: the fewest vectors in the stash (and so the most blocks)
// that hold the row with all blocks resident at once, and the blocks.
struct Layout {
  int stash_vectors = -1;  // -1: no stash is enough
  std::int64_t blocks = 0;
  std::size_t shared = 0;
};

Layout layout_for(const Residency& r, std::int64_t chunks) {
  for (int s = 0; s <= kMostStashVectors; ++s) {
    const std::int64_t blocks = (chunks + chunks_per_block(r, s) - 1) / chunks_per_block(r, s);
    if (blocks <= launchable_blocks(r, s)) return {s, blocks, shared_bytes(s)};
  }
  return {};
}

template <typename T, typename P, bool kCentre, bool kAdd>
Layout layout_for(bool aligned, std::int64_t chunks) {
  return aligned ? layout_for(residency<T, P, kCentre, kAdd, true>(), chunks)
                 : layout_for(residency<T, P, kCentre, kAdd, false>(), chunks);
}

// The widest row the call's kernels hold (lean calls: the lean kernel and the pairs, the less).
template <typename T, typename P, bool kCentre, bool kAdd>
std::int64_t capacity(bool aligned) {
  if (!aligned) return capacity(residency<T, P, kCentre, kAdd, false>());
  const std::int64_t most = capacity(residency<T, P, kCentre, kAdd, true>());
  if constexpr (kLean<T, P, kAdd, true>) {
    return std::min(most, capacity(pairs_residency<kCentre>()));
  } else {
    return most;
  }
}

// The held form's grid for a row of @p chunks chunks: the fewest vectors a thread with which
// every block resident at once holds it, and as few blocks as hold it with that many; vectors 0
// where the form does not take the row (more than kHeldVectors, or fewer than
// kHeldFewestVectors).
struct HeldLayout {
  int vectors = 0;
  std::int64_t blocks = 0;
  std::size_t shared = 0;
};

// Its shared memory is kSharedSlots 16-byte slots a thread, as a stash of that many vectors.
constexpr int kSharedSlots = kHeldVectors + kSharedShifts;

template <bool kCentre>
const Residency& held_residency() {
  static const Residency r = residency_of(norm_whole_gpu_held<kCentre>, kHeldVectors);
  return r;
}

// Threads of every block of the held form resident at once (0: its shared memory does not fit).
template <bool kCentre>
std::int64_t held_threads() {
  return launchable_blocks(held_residency<kCentre>(), kSharedSlots) * kWholeGpuThreads;
}

template <bool kCentre>
HeldLayout held_layout_for(std::int64_t chunks) {
  const std::int64_t threads = held_threads<kCentre>();
  if (threads == 0) return {};
  const std::int64_t vectors = (chunks + threads - 1) / threads;
  if (vectors > kHeldVectors || vectors < kHeldFewestVectors) return {};
  const std::int64_t per_block = vectors * kWholeGpuThreads;
  return {static_cast<int>(vectors), (chunks + per_block - 1) / per_block,
          shared_bytes(kSharedSlots)};
}

}  // namespace

std::size_t whole_gpu_scratch_bytes() {  // four rows' parts: the pairs alternate two halves
  return 4 * std::size_t{kMostWholeGpuBlocks} * sizeof(Moments);
}

template <typename T, typename P, bool kCentre, bool kAdd>
std::int64_t whole_gpu_chunks(bool aligned) {
  return capacity<T, P, kCentre, kAdd>(aligned);
}

template <bool kCentre>
std::int64_t whole_gpu_held_chunks() {
  const std::int64_t threads = held_threads<kCentre>();
  return threads > 0 ? (kHeldFewestVectors - 1) * threads + 1 : 0;
}
template std::int64_t whole_gpu_held_chunks<false>();
template std::int64_t whole_gpu_held_chunks<true>();

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_whole_gpu(const Tensors<T, P>& t, bool aligned, std::int64_t chunks, Scratch scratch,
                      cudaStream_t stream) {
  const Layout layout = layout_for<T, P, kCentre, kAdd>(aligned, chunks);
  check_argument(layout.stash_vectors >= 0, "kernels::spread::whole_gpu", "cols",
                 "is too wide for the whole GPU: a row of " + std::to_string(chunks) +
                     " chunks, the GPU holds " +
                     std::to_string(capacity<T, P, kCentre, kAdd>(aligned)));
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(layout.blocks));
  config.blockDim = dim3(kWholeGpuThreads);
  config.dynamicSmemBytes = layout.shared;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  auto* parts = static_cast<Moments*>(scratch.data);
  auto launch = [&](auto kernel) {
    NORMLAB_CHECK(cudaLaunchKernelEx(&config, kernel, t, parts, layout.stash_vectors));
  };
  // The lean calls: the held form where it takes the row, else rows in pairs, else (one row)
  // the lean kernel.
  if constexpr (kLean<T, P, kAdd, true>) {
    if (aligned) {
      const HeldLayout held = held_layout_for<kCentre>(chunks);
      if (held.vectors > 0) {
        config.gridDim = dim3(static_cast<unsigned int>(held.blocks));
        config.dynamicSmemBytes = held.shared;
        NORMLAB_CHECK(
            cudaLaunchKernelEx(&config, norm_whole_gpu_held<kCentre>, t, parts, held.vectors));
        return;
      }
      if (t.rows >= 2) {
        const Layout pairs = layout_for(pairs_residency<kCentre>(), chunks);
        check_argument(pairs.stash_vectors >= 0, "kernels::spread::whole_gpu", "cols",
                       "is too wide for the whole GPU in pairs of rows: a row of " +
                           std::to_string(chunks) + " chunks, the GPU holds " +
                           std::to_string(capacity(pairs_residency<kCentre>())));
        config.gridDim = dim3(static_cast<unsigned int>(pairs.blocks));
        config.dynamicSmemBytes = pairs.shared;
        NORMLAB_CHECK(cudaLaunchKernelEx(&config, norm_whole_gpu_pairs<kCentre>, t, parts,
                                         pairs.stash_vectors));
        return;
      }
    }
  }
  if (aligned) return launch(norm_whole_gpu<T, P, kCentre, kAdd, true>);
  launch(norm_whole_gpu<T, P, kCentre, kAdd, false>);
}

#define NORMLAB_SPREAD_WHOLE_GPU(T, P, kCentre, kAdd)                                           \
  template std::int64_t whole_gpu_chunks<T, P, kCentre, kAdd>(bool);                            \
  template void launch_whole_gpu<T, P, kCentre, kAdd>(const Tensors<T, P>&, bool, std::int64_t, \
                                                      Scratch, cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_SPREAD_WHOLE_GPU)

}  // namespace normlab::kernels::spread
