// SPDX-License-Identifier: Apache-2.0
/// @file backward_launch.cuh
/// @brief The backward family's launch decisions: the block for a row (general_launch.cuh's
/// helpers), the grid (one block per row, or a persistent grid sized by the SM count and the
/// kernel's occupancy), and the kernels of one call in order.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <string>

#include "general_launch.cuh"  // threads_for_chunks
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "row_backward.cuh"

namespace normlab::kernels::backward {

// The checks of every launcher, before anything is launched: a valid shape; x, dy and dx (and
// dresidual when given) non-null when rows > 0, with strides of at least cols, aligned to their
// element; the saved statistics; the gradient of every parameter given; and @p scratch_needed
// bytes of scratch.
template <typename T, typename P>
void validate_gradients(const char* fn, const Gradients<T, P>& g, bool centre,
                        std::size_t scratch_needed) {
  validate_shape(fn, g.rows, g.cols);
  auto tensor = [&](const char* name, const void* data, std::int64_t stride) {
    validate_tensor(fn, name, data, g.rows, g.cols, stride);
    validate_alignment(fn, name, data, stride, sizeof(T), sizeof(T));
  };
  tensor("x", g.x, g.x_stride);
  validate_row_groups(fn, "x", g.rows, g.cols, g.x_stride, g.x_group_rows, g.x_group_stride);
  tensor("dy", g.dy, g.dy_stride);
  tensor("dx", g.dx, g.dx_stride);
  if (g.dresidual != nullptr) tensor("dresidual", g.dresidual, g.dresidual_stride);
  validate_alignment(fn, "weight", g.weight, 0, sizeof(P), sizeof(P));
  check_argument((g.weight == nullptr) == (g.dweight == nullptr), fn, "dweight",
                 "must be given exactly when weight is");
  check_argument(g.rows == 0 || g.saved_rstd != nullptr, fn, "saved_rstd", "must not be null");
  check_argument(!centre || g.rows == 0 || g.saved_mean != nullptr, fn, "saved_mean",
                 "must not be null for LayerNorm");
  check_argument(g.scratch_bytes >= scratch_needed && (scratch_needed == 0 || g.scratch != nullptr),
                 fn, "scratch", [&] {
                   return "must hold " + std::to_string(scratch_needed) + " bytes (got " +
                          std::to_string(g.scratch_bytes) + ")";
                 });
}

// Whether every row of every tensor of @p g, and the weight, lies on the 16-byte grid, with a
// whole number of chunks a row: the kernels' aligned form (16-byte vectors only).
template <typename T, typename P>
bool on_the_grid(const Gradients<T, P>& g) {
  const auto element = static_cast<std::int64_t>(sizeof(T));
  return g.cols % Vector<T>::kWidth == 0 &&
         rows_aligned(g.x, g.x_stride, g.x_group_rows, g.x_group_stride, element) &&
         rows_aligned(g.dy, g.dy_stride, element) && rows_aligned(g.dx, g.dx_stride, element) &&
         rows_aligned(g.dresidual, g.dresidual_stride, element) &&
         rows_aligned(g.weight, 0, element);
}

// [grid]
// The SM count of the current device, asked once per process.
inline int sm_count() {
  static const int count = [] {
    int device = 0, sms = 0;
    NORMLAB_CHECK(cudaGetDevice(&device));
    NORMLAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
  }();
  return count;
}

// The most blocks a persistent grid gets on one SM: enough rows in flight to hide latency,
// few enough that the partial rows (grid x cols floats, written and read once) stay a few
// percent of the traffic on the shapes training runs.
inline constexpr int kMostBlocksPerSm = 8;

// Partial rows the deterministic reduction may need: scratch is sized for this bound.
inline std::int64_t most_partial_rows(std::int64_t rows) {
  return std::min<std::int64_t>(rows, static_cast<std::int64_t>(sm_count()) * kMostBlocksPerSm);
}

// The blocks of kKernel with @p threads each that fit one SM together, asked once per kernel
// and block size (threads is a whole number of warps, at most 512).
template <auto kKernel>
int resident_blocks(unsigned int threads) {
  static std::array<std::atomic<int>, 17> known{};  // by warps; 0: not asked yet
  std::atomic<int>& slot = known[threads / device::kWarpSize];
  int blocks = slot.load();
  if (blocks == 0) {
    NORMLAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kKernel,
                                                                static_cast<int>(threads), 0));
    blocks = std::max(blocks, 1);
    slot.store(blocks);
  }
  return blocks;
}

// The blocks of a persistent grid that walks @p items (rows, or groups of rows) when at most
// @p fit blocks are resident at once: as few as still finish in the rounds fit blocks would
// take, so that fewer than `rounds` blocks sit out the last round (up to fit - 1 before). What
// changed: the grid was min(items, fit). Where items is not a multiple of fit, some blocks took
// one row more than the others while the rest sat idle, the last round on part of the SMs.
// The fewest blocks that still finish in the same rounds keep every block busy to the end, and
// store fewer partial rows. The narrow kernels' grid takes the same rule (chapter 08's worklog,
// "Even rounds", has the case that showed it and the figures).
inline std::int64_t even_grid(std::int64_t items, std::int64_t fit) {
  const std::int64_t rounds = (items + fit - 1) / fit;
  return (items + rounds - 1) / rounds;
}
// [grid]

// Vectors of x (and of dy) a thread keeps for a row of @p chunks 16-byte chunks: 2 while a
// block of 512 holds the row (8192 16-bit or 4096 fp32 columns), then 4, then 8. Within
// kMaxRmsnormCols and kMaxLayernormCols only RMSNorm on 16-bit rows wider than 8192 takes 4
// vectors of 384 threads, and only fp32 takes 8 (RMSNorm past 8192 columns); kernels with
// more registers than that would spill are never made (launch below).
template <typename T>
int vectors_for(std::int64_t chunks) {
  if (chunks <= 2 * kMostThreads<T, 2>) return 2;
  if (chunks <= 4 * kMostThreads<T, 4>) return 4;
  return 8;
}

// dweight (and dbias) from sums_rows partial rows each, in one launch: a block a tile of either
// gradient, started early by programmatic dependent launch (sm_90: it waits for the grid before
// it to finish before it reads). One launch for both, not one each, so that LayerNorm's dbias
// does not wait for a second launch behind dweight's, and float4 loads, a quarter of the load
// instructions (chapter 08's page and worklog have the figures).
template <typename T, typename P>
void sum_columns(const Gradients<T, P>& g, const float* sums, std::int64_t sums_rows, bool centre,
                 cudaStream_t stream) {
  P* dbias = centre ? g.dbias : nullptr;
  if (g.dweight == nullptr && dbias == nullptr) return;
  const bool vectors = rows_aligned(sums, g.cols, sizeof(float));  // float4 rows
  const std::int64_t tiles = vectors ? sum_tiles<4>(g.cols) : sum_tiles<1>(g.cols);
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = static_cast<unsigned int>((dbias != nullptr ? 2 : 1) * tiles);
  config.blockDim = kSumThreads;
  config.stream = stream;
  config.attrs = &early;
  config.numAttrs = 1;
  // In one wave: with float4 loads the plain build's registers allow fewer blocks an SM than
  // the grid may need (LayerNorm's two tiles a column group double its blocks), and a second,
  // part-empty wave then adds the time of a whole one. There the kernel built for 4 blocks an SM
  // runs instead, so that every block is resident at once (chapter 08's worklog, "The column sums
  // in one wave", has the register counts and the figures). Where one wave holds the blocks
  // anyway the 4-block build has nothing to gain, so it is not taken there.
  const unsigned int blocks = config.gridDim.x;
  const bool one_wave =
      blocks <=
      static_cast<unsigned int>(resident_blocks<sum_partials<4, P>>(kSumThreads) * sm_count());
  const auto kernel = !vectors   ? sum_partials<1, P>
                      : one_wave ? sum_partials<4, P>
                                 : sum_partials<4, P, kSumOneWaveBlocks>;
  NORMLAB_CHECK(
      cudaLaunchKernelEx(&config, kernel, sums, sums_rows, g.cols, g.cols, g.dweight, dbias));
}

// RMSNorm's dbias: the column sums of dy itself, in sum_partials' fixed order (its rows are the
// partial rows), launched before the row kernel, which may write dx over dy.
template <typename T, typename P>
void sum_dy_columns(const Gradients<T, P>& g, cudaStream_t stream) {
  const auto tiles = static_cast<unsigned int>(sum_tiles<1>(g.cols));
  sum_partials<1, P, 1, T>
      <<<tiles, kSumThreads, 0, stream>>>(g.dy, g.rows, g.dy_stride, g.cols, g.dbias, nullptr);
  NORMLAB_CHECK_LAUNCH();
}

// [launch]
// kTwoLevel: x's rows in groups (a head view); a single row starts at x in either form.
template <typename T, typename P, int kVectors, bool kCentre, bool kAligned, bool kTwoLevel>
void launch_rows(const Gradients<T, P>& g, Reduction reduction, unsigned int threads,
                 cudaStream_t stream) {
  float* sums = g.scratch;
  if (g.rows == 1) {
    // (0) One row: one block, which writes the gradients itself (either reduction gives these
    // bits for one row), so the call is one launch and needs no scratch.
    backward_rows<T, P, kVectors, kCentre, kAligned, StorePartialRow>
        <<<1, threads, 0, stream>>>(g, nullptr, 1);
    NORMLAB_CHECK_LAUNCH();
    return;
  }
  if (reduction == Reduction::atomic) {
    // (a) One block per row, atomics into one zeroed row (two for LayerNorm).
    const std::int64_t sums_rows = 1;
    NORMLAB_CHECK(cudaMemsetAsync(sums, 0, (kCentre ? 2 : 1) * g.cols * sizeof(float), stream));
    const auto grid = static_cast<unsigned int>(std::min<std::int64_t>(g.rows, INT_MAX));
    backward_rows<T, P, kVectors, kCentre, kAligned, AddAtomically, false, kTwoLevel>
        <<<grid, threads, 0, stream>>>(g, sums, sums_rows);
    NORMLAB_CHECK_LAUNCH();
    return sum_columns(g, sums, sums_rows, kCentre, stream);
  }
  // (b) A persistent grid: at most as many blocks as fit the SMs at once (at most
  // kMostBlocksPerSm each), in even rounds (even_grid), each walking every gridDim.x-th row and
  // storing one partial row. Loading a row ahead where it costs no block an SM: it takes more
  // registers, and where that drops a block an SM the kernel loses more bytes in flight than the
  // row ahead adds; where the block count holds, the row ahead hides a row's latency (chapter
  // 08's worklog, "A row loaded ahead", has the register counts and the figures).
  constexpr auto plain =
      backward_rows<T, P, kVectors, kCentre, kAligned, StorePartialRow, false, kTwoLevel>;
  constexpr auto ahead = backward_rows<T, P, kVectors, kCentre, kAligned, StorePartialRow,
                                       kCanLoadAhead<T, kVectors>, kTwoLevel>;
  const int plain_blocks = std::min(resident_blocks<plain>(threads), kMostBlocksPerSm);
  const int ahead_blocks = std::min(resident_blocks<ahead>(threads), kMostBlocksPerSm);
  const auto kernel = ahead_blocks >= plain_blocks ? ahead : plain;
  const std::int64_t fit =
      static_cast<std::int64_t>(sm_count()) * std::max(plain_blocks, ahead_blocks);
  const std::int64_t sums_rows = even_grid(g.rows, fit);
  kernel<<<static_cast<unsigned int>(sums_rows), threads, 0, stream>>>(g, sums, sums_rows);
  NORMLAB_CHECK_LAUNCH();
  sum_columns(g, sums, sums_rows, kCentre, stream);
}
// [launch]

// [launch_narrow]
// (c) Rows of at most kNarrowMostVectors chunks a lane: a warp a row, as many blocks of
// kNarrowWarps warps as fit the SMs (at most kMostBlocksPerSm each, in even rounds), one partial
// row a block.
template <typename T, typename P, int kVectors, bool kCentre, bool kTwoLevel>
void launch_narrow(const Gradients<T, P>& g, cudaStream_t stream) {
  constexpr auto kernel = backward_narrow<T, P, kVectors, kCentre, kTwoLevel>;
  if (g.rows == 1) {  // as launch_rows: one block writes the gradients, no scratch
    backward_narrow<T, P, kVectors, kCentre><<<1, kNarrowThreads, 0, stream>>>(g, nullptr, 1);
    NORMLAB_CHECK_LAUNCH();
    return;
  }
  const int fit = std::min(resident_blocks<kernel>(kNarrowThreads), kMostBlocksPerSm);
  const std::int64_t blocks_needed = (g.rows + kNarrowWarps - 1) / kNarrowWarps;
  const std::int64_t sums_rows =
      even_grid(blocks_needed, static_cast<std::int64_t>(sm_count()) * fit);
  kernel<<<static_cast<unsigned int>(sums_rows), kNarrowThreads, 0, stream>>>(g, g.scratch,
                                                                              sums_rows);
  NORMLAB_CHECK_LAUNCH();
  sum_columns(g, g.scratch, sums_rows, kCentre, stream);
}
// [launch_narrow]

// Which kernel runs a call with x's rows in one level or in groups (kTwoLevel): aligned
// (16-byte vectors only) or not, and the vectors per thread.
template <typename T, typename P, bool kCentre, bool kTwoLevel>
void launch_levels(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  const bool aligned = on_the_grid(g);
  const std::int64_t chunks = (g.cols + Vector<T>::kWidth - 1) / Vector<T>::kWidth;
  if (reduction == Reduction::deterministic && aligned &&
      chunks <= device::kWarpSize * kNarrowMostVectors) {
    const int lane_vectors = static_cast<int>((chunks + device::kWarpSize - 1) / device::kWarpSize);
    switch (lane_vectors) {
      case 1:
        return launch_narrow<T, P, 1, kCentre, kTwoLevel>(g, stream);
      case 2:
        return launch_narrow<T, P, 2, kCentre, kTwoLevel>(g, stream);
      case 3:
        return launch_narrow<T, P, 3, kCentre, kTwoLevel>(g, stream);
      default:
        return launch_narrow<T, P, 4, kCentre, kTwoLevel>(g, stream);
    }
  }
  const int vectors = vectors_for<T>(chunks);
  const unsigned int threads = threads_for_chunks(chunks, vectors);
  auto run = [&]<int kVectors>() {
    if (aligned) {
      launch_rows<T, P, kVectors, kCentre, true, kTwoLevel>(g, reduction, threads, stream);
    } else {
      launch_rows<T, P, kVectors, kCentre, false, kTwoLevel>(g, reduction, threads, stream);
    }
  };
  constexpr bool k16Bit = sizeof(T) == 2;
  if (vectors == 2) return run.template operator()<2>();
  if constexpr (!(kCentre && k16Bit)) {
    if (vectors == 4) return run.template operator()<4>();
  }
  if constexpr (!kCentre && !k16Bit) {
    if (vectors == 8) return run.template operator()<8>();
  }
  // validate() refuses every width these kernels do not cover; this is never reached.
  check_argument(false, "kernels::backward::launch", "cols",
                 "has no kernel (" + std::to_string(g.cols) + ")");
}

// Which kernel runs a call. rows = 0 runs no row kernel; the column sums still write zero
// gradients.
template <typename T, typename P, bool kCentre>
void launch(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream) {
  if (g.rows == 0) return sum_columns(g, g.scratch, 0, kCentre, stream);
  if (g.x_group_rows > 1) return launch_levels<T, P, kCentre, true>(g, reduction, stream);
  launch_levels<T, P, kCentre, false>(g, reduction, stream);
}

}  // namespace normlab::kernels::backward
