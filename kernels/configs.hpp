// SPDX-License-Identifier: Apache-2.0
/// @file configs.hpp
/// @brief The lanes and block families' configurations and their decision table (taught in
/// chapter 09): which kernel and launch configuration run a norm of a given shape, dtype and
/// alignment. A pure host function, tested without a GPU (tests/cpu/test_ch09_dispatch.cpp);
/// configured.cu launches what it returns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunk_grid.hpp"

namespace normlab::kernels::configured {

/// Every compiled configuration. Narrow: a group of `lanes` lanes (a power of two, at most a
/// warp) per row, each lane keeping `vectors` 16-byte vectors of the row, kNarrowThreads /
/// lanes rows per block. Block: one row per block of up to `max_threads` threads, each keeping
/// `vectors` vectors, registers capped by __launch_bounds__(max_threads, min_blocks) so that
/// min_blocks blocks of max_threads fit an SM's 65536 registers. Wide: the general launcher
/// (rows too wide for this table; its streaming kernel). Slim: one row per block of up to
/// `max_threads` threads as block, or with `lanes` one row per group of lanes as narrow
/// (max_threads / lanes rows a block), compiled for aligned rows with a weight (and a LayerNorm
/// bias) in the activations' dtype only, so that a thread keeps little beyond its row (slim.cu);
/// the tuned chooser alone picks it. Staged: one row per block of up to `max_threads` threads as
/// block, the row kept in shared memory instead of registers, each thread copying `vectors`
/// chunks of it at most, for the calls slim takes (staged.cu); the tuned chooser alone picks it.
enum class Kind { narrow, block, wide, slim, staged };

struct Config {
  Kind kind;
  int lanes;            ///< narrow (and slim with groups): lanes per row
  int vectors;          ///< 16-byte vectors per thread (staged: in shared memory)
  int max_threads;      ///< block: threads per block at most (narrow: kNarrowThreads)
  int min_blocks;       ///< blocks per SM that __launch_bounds__ guarantees registers for
  bool aligned;         ///< compiled for rows that are whole aligned vectors only
  bool residual_first;  ///< add + norm: the row's residual loaded whole (row_norm.cuh)
  const char* name;
  bool layernorm = true;      ///< compiled for LayerNorm ops too (false: RMSNorm ops only)
  bool held = false;          ///< the parameters loaded with the row, before the statistics
  bool add_layernorm = true;  ///< compiled for add + LayerNorm too (false: it spills)
};

inline constexpr int kNarrowThreads = 256;

// [table]
// The configurations, as compiled (lanes.cu and block.cu instantiate a kernel for each; the
// chapter program's sweep entries `ch09_<op>@<name>` run each one alone). Register budget:
// __launch_bounds__(max_threads, min_blocks) shares an SM's 65536 registers among
// min_blocks * max_threads threads, so a narrow block of 256 threads may use 64 registers a
// thread at 4 blocks an SM, 85 at 3, 128 at 2, 255 at 1; a block of 1024 threads 64; of 512 128; of
// 384 170. A 16-byte vector is 4 registers, and with a 16-bit row and fp32 parameters every chunk
// also needs 8 fp32 scales (and shifts): the budgets below are the smallest that compile
// without spilling (the build fails on a spill: -Xptxas=-warn-spills with -Werror).
inline constexpr Config kConfigs[] = {
    {Kind::narrow, 8, 2, kNarrowThreads, 4, true, true, "narrow8x2"},
    {Kind::narrow, 32, 2, kNarrowThreads, 4, true, true, "narrow32x2"},
    // 16 lanes of 5 chunks hold 80, where 32 lanes of 3 leave a quarter of 96 idle on a 72-chunk
    // (576-wide bf16) row; 4 blocks an SM fit 64 registers for RMSNorm ops, while LayerNorm's
    // instances spill there (72 to 112 bytes), so it is compiled for RMSNorm ops only. Its add +
    // RMSNorm loads the residual chunk by chunk, as narrow32x3's does: a whole row of residual
    // chunks as well spilled a register (and the tuned tables never rank it first for add ops).
    {Kind::narrow, 16, 5, kNarrowThreads, 4, true, false, "narrow16x5", false},
    {Kind::narrow, 32, 3, kNarrowThreads, 4, true, false, "narrow32x3"},
    {Kind::narrow, 32, 4, kNarrowThreads, 2, true, true, "narrow32x4"},
    {Kind::narrow, 32, 8, kNarrowThreads, 1, true, true, "narrow32x8"},
    // Groups that rows of 32 to 128 aligned chunks fill exactly (256 to 1024 16-bit columns,
    // 128 to 512 fp32), with fewer lanes a row and so more rows a block than 32 lanes give; for
    // the tuner to rank against the ones above.
    {Kind::narrow, 16, 2, kNarrowThreads, 4, true, true, "narrow16x2"},
    {Kind::narrow, 8, 4, kNarrowThreads, 2, true, true, "narrow8x4"},
    {Kind::narrow, 16, 4, kNarrowThreads, 2, true, true, "narrow16x4"},
    {Kind::narrow, 8, 8, kNarrowThreads, 1, true, true, "narrow8x8"},
    {Kind::narrow, 16, 6, kNarrowThreads, 1, true, true, "narrow16x6"},
    {Kind::narrow, 16, 8, kNarrowThreads, 1, true, true, "narrow16x8"},
    {Kind::narrow, 8, 2, kNarrowThreads, 4, false, true, "narrow8x2_any"},
    {Kind::narrow, 32, 2, kNarrowThreads, 4, false, true, "narrow32x2_any"},
    {Kind::narrow, 32, 3, kNarrowThreads, 2, false, false, "narrow32x3_any"},
    {Kind::narrow, 32, 4, kNarrowThreads, 1, false, true, "narrow32x4_any"},
    {Kind::narrow, 32, 8, kNarrowThreads, 1, false, true, "narrow32x8_any"},
    {Kind::block, 0, 1, 1024, 1, true, true, "block1"},
    {Kind::block, 0, 2, 1024, 1, true, true, "block2"},
    {Kind::block, 0, 4, 512, 1, true, true, "block4"},
    {Kind::block, 0, 8, 384, 1, true, true, "block8"},
    {Kind::block, 0, 4, 512, 1, false, false, "block4_any"},
    // Sized to the block they run in (a row of up to 512 or 1024 chunks), so that the cap buys
    // blocks an SM: 64 registers a thread for 4 blocks of 256 or 2 of 512, 85 for 6 of 128 or
    // 3 of 256 (block4 above is capped for 512 threads, so at 128 threads it may use 128).
    {Kind::block, 0, 2, 256, 4, true, true, "block2_256x4"},
    {Kind::block, 0, 2, 512, 2, true, true, "block2_512x2"},
    {Kind::block, 0, 4, 128, 6, true, true, "block4_128x6"},
    {Kind::block, 0, 4, 256, 3, true, true, "block4_256x3"},
    // Two rows an SM at up to 2048 chunks (16384 16-bit columns), where a block of 4 vectors a
    // thread (chapter 07's, or block4) needs more than 448 threads and an SM then holds one. Its
    // add + norm instances load the residual chunk by chunk: loaded whole they spilled at 128.
    {Kind::block, 0, 8, 256, 2, true, false, "block8_256x2"},
    // Held: each thread loads the weight and bias of its chunks with the row and keeps them in
    // fp32 registers (row_norm.cuh's kHeld), so that no load waits for the statistics. On few
    // rows that load is the last of the critical path; on many, other rows' warps hide it and
    // the registers cost blocks an SM. Caps loose enough for a chunk's 16 parameters unspilled.
    {Kind::narrow, 32, 2, kNarrowThreads, 2, true, true, "narrow32x2_held", true, true},
    {Kind::narrow, 8, 4, kNarrowThreads, 1, true, true, "narrow8x4_held", true, true},
    {Kind::block, 0, 1, 1024, 1, true, true, "block1_held", true, true},
    {Kind::block, 0, 2, 512, 1, true, true, "block2_held", true, true},
    {Kind::block, 0, 2, 256, 2, true, true, "block2_256x2_held", true, true},
    {Kind::block, 0, 4, 384, 1, true, false, "block4_held", true, true},
    // Rows of up to 4096 chunks (32768 16-bit columns) in one block's registers, where a cluster
    // would otherwise take them; RMSNorm ops only (LayerNorm's add with fp32 parameters spills).
    {Kind::block, 0, 8, 512, 1, true, false, "block8_512", false},
    // Slim, capped as block is: up to 1024 threads of 1 or 2 vectors (64 registers a thread,
    // more than their rows need), 512 of 4 or 8 (128), held or not; and 256 or 512 of 4 at 64
    // registers, 4 or 2 blocks an SM. Add + LayerNorm spills at 64 registers with 4 vectors, or
    // with 2 held (x, residual, weight and bias all in flight at once), and is refused there
    // (no kernel). 8 vectors: RMSNorm ops only (LayerNorm's spill at 128).
    {Kind::slim, 0, 1, 1024, 1, true, true, "slim1_held", true, true},
    {Kind::slim, 0, 2, 1024, 1, true, true, "slim2", true, false},
    {Kind::slim, 0, 2, 1024, 1, true, true, "slim2_held", true, true, false},
    {Kind::slim, 0, 4, 256, 4, true, true, "slim4_256x4", true, false, false},
    {Kind::slim, 0, 4, 512, 2, true, true, "slim4_512x2", true, false, false},
    {Kind::slim, 0, 4, 512, 1, true, true, "slim4", true, false},
    {Kind::slim, 0, 4, 512, 1, true, true, "slim4_held", true, true},
    {Kind::slim, 0, 8, 512, 1, true, true, "slim8", false, false},
    // Slim in groups of lanes, 256 threads a block as narrow's, for many narrow rows: rows of 32
    // to 128 chunks (256 to 1024 16-bit columns) that each group fills or nearly. 64 registers
    // (4 blocks an SM) hold 3 vectors a lane; with 4 or 5, fp32 LayerNorm and add + RMSNorm
    // spill there, so those have 85 (3 blocks). Add + LayerNorm keeps x, the residual and h at
    // once and spills: refused.
    {Kind::slim, 8, 4, 256, 3, true, true, "slim_lanes8x4", true, false, false},
    {Kind::slim, 16, 4, 256, 3, true, true, "slim_lanes16x4", true, false, false},
    {Kind::slim, 16, 5, 256, 3, true, true, "slim_lanes16x5", true, false, false},
    {Kind::slim, 32, 3, 256, 4, true, true, "slim_lanes32x3", true, false, false},
    {Kind::slim, 32, 4, 256, 3, true, true, "slim_lanes32x4", true, false, false},
    // The same groups held, for few rows: each lane's weight and bias loaded with its chunks of
    // the row, so that no load waits for the statistics (the held configurations above); 128
    // threads a block, 4 rows, with 128 registers a thread, since on few rows no other row's
    // warps fill an SM anyway. Add + LayerNorm is refused, as by the groups above.
    {Kind::slim, 32, 1, 128, 4, true, true, "slim_lanes32x1_held", true, true, false},
    {Kind::slim, 32, 2, 128, 4, true, true, "slim_lanes32x2_held", true, true, false},
    {Kind::slim, 32, 3, 128, 4, true, true, "slim_lanes32x3_held", true, true, false},
    {Kind::slim, 32, 4, 128, 4, true, true, "slim_lanes32x4_held", true, true, false},
    // Staged: rows of up to 4096 chunks (16384 fp32 or 32768 16-bit columns) in a block's shared
    // memory, 64 KB of it (128 KB with the residual), so that an SM holds as many rows as its
    // shared memory takes where registers hold one or two; 64 registers a thread at most. (16
    // vectors a thread of 256 spill there: a pass over the stage loads its chunks at once.)
    {Kind::staged, 0, 4, 1024, 1, true, true, "staged4"},
    {Kind::staged, 0, 8, 512, 2, true, true, "staged8"},
    {Kind::wide, 0, 0, 0, 0, false, false, "wide"},
};
// [table]
inline constexpr int kConfigCount = sizeof(kConfigs) / sizeof(kConfigs[0]);

/// What the dispatcher knows of a call.
struct Problem {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  int element_bytes = 2;    ///< 4, 2
  bool aligned = true;      ///< every row of every tensor a whole number of aligned vectors
  std::int64_t chunks = 0;  ///< the most 16-byte chunks a row of x spans (misalignment included)
  bool add = false;         ///< the op adds a residual first (it moves twice the bytes a row)
  bool centre = false;      ///< the op is a LayerNorm (it subtracts the mean)
};

/// The decision: a configuration (an index into kConfigs), its launch, and why.
struct Choice {
  int config = 0;
  unsigned int threads = 0;  ///< per block
  unsigned int blocks = 0;   ///< grid; blocks loop over rows beyond it (slim: it holds every row)
  std::string why;
};

/// Rows this many or fewer are "few": latency, not bandwidth, is the measure.
inline constexpr std::int64_t kFewRows = 64;
/// Rows this wide or narrower go to the narrow kernels (when their chunks fit one).
inline constexpr std::int64_t kNarrowCols = 1024;
/// The narrowest 16-bit rows, in chunks, that block8_256x2 takes (configs.cpp, rule 5): where a
/// block of 4 vectors a thread fits an SM once. RMSNorm: chapter 07's block of 72 registers
/// fits twice up to 448 threads (1792 chunks); LayerNorm: block4's of 80 or so fits twice up to
/// 384 threads (1536 chunks). Chapter 09's worklog has the comparisons.
inline constexpr std::int64_t kTwoRowsRmsNormLeast = 1793;
inline constexpr std::int64_t kTwoRowsLayerNormLeast = 1537;

/// The dispatcher's table (configs.cpp says each rule's reason).
Choice choose(const Problem& p);

/// The launch of configuration @p config on @p p, or an empty `why`'s opposite: a Choice whose
/// `why` starts with "refused:" when the configuration cannot hold the row (the sweep entries).
Choice configure(int config, const Problem& p);

/// The index in kConfigs of the configuration called @p name, or -1.
int config_index(std::string_view name);

/// The same at compile time, for names written in the code (choose()'s rules): a name that is
/// not in the table does not compile.
consteval int index_of(std::string_view name) {
  for (int i = 0; i < kConfigCount; ++i) {
    if (name == kConfigs[i].name) return i;
  }
  throw "no configuration of that name in kConfigs";
}

/// Shared memory a staged configuration keeps a row of @p chunks 16-byte chunks in: x, and for
/// add + norm (@p add) the residual after it.
constexpr std::int64_t staged_bytes(std::int64_t chunks, bool add) {
  return chunks * (add ? 2 : 1) * kChunkBytes;
}
/// Shared memory the staged kernels keep beside the row, at most: block_sum's partial sums.
inline constexpr std::int64_t kStagedOwnBytes = 2048;
/// Empty when the current GPU gives a block the shared memory a staged row of @p chunks needs
/// (staged_bytes, and kStagedOwnBytes beside it); otherwise why not. Asks the GPU.
std::string staged_refusal(std::int64_t chunks, bool add);

/// The most 16-byte chunks a row of configuration @p config holds (0: any, for wide).
std::int64_t chunks_held(const Config& config);

/// Whether configuration @p config has an add + LayerNorm kernel: compiled for LayerNorm ops,
/// and for add + LayerNorm too.
constexpr bool has_add_layernorm(const Config& config) {
  return config.layernorm && config.add_layernorm;
}

}  // namespace normlab::kernels::configured
