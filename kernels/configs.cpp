// SPDX-License-Identifier: Apache-2.0
// The configurations' decision table (configs.hpp): pure host code, no CUDA, so that every boundary
// of the table is tested on any machine.
#include "configs.hpp"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <string>

#include "normlab/device.hpp"

namespace normlab::kernels::configured {

namespace {

constexpr int kWarp = 32;

unsigned int grid_of(std::int64_t blocks) {
  return static_cast<unsigned int>(std::clamp<std::int64_t>(blocks, 1, INT_MAX));
}

}  // namespace

std::int64_t chunks_held(const Config& config) {
  switch (config.kind) {
    case Kind::narrow:
    case Kind::block:
    case Kind::slim:  // a group of lanes where it has one, else a block
    case Kind::staged:
      return static_cast<std::int64_t>(config.lanes > 0 ? config.lanes : config.max_threads) *
             config.vectors;
    default:
      return 0;
  }
}

std::string staged_refusal(std::int64_t chunks, bool add) {
  const std::int64_t most = most_shared_bytes_per_block();
  const std::int64_t needs = staged_bytes(chunks, add) + kStagedOwnBytes;
  if (needs <= most) return {};
  return "stages a row of " + std::to_string(chunks) + " 16-byte chunks" +
         (add ? " and its residual" : "") + " in " + std::to_string(needs) +
         " bytes of shared memory; a block of this GPU may have " + std::to_string(most);
}

int config_index(std::string_view name) {
  // The configuration entries pass the table's own name on every launch: found by its address,
  // no string compared. Any other copy of a name is compared.
  for (int i = 0; i < kConfigCount; ++i) {
    if (name.data() == kConfigs[i].name) return i;
  }
  for (int i = 0; i < kConfigCount; ++i) {
    if (name == kConfigs[i].name) return i;
  }
  return -1;
}

namespace {

// What keeps a (narrow or block) configuration from running a problem. choose() asks it of
// each candidate in turn and writes a reason only for the one it takes: a reason formatted for
// every refusal cost more than the whole decision.
enum class Refusal { none, layernorm, add_layernorm, alignment, width };

Refusal refusal_of(const Config& config, const Problem& p) {
  if (p.centre && !config.layernorm) return Refusal::layernorm;
  if (p.centre && p.add && !has_add_layernorm(config)) return Refusal::add_layernorm;
  if (config.aligned && !p.aligned) return Refusal::alignment;
  if (p.chunks > chunks_held(config)) return Refusal::width;
  return Refusal::none;
}

// The launch of configuration @p index (narrow or block) on @p p, which it holds.
Choice launch_of(int index, const Problem& p) {
  const Config& config = kConfigs[index];
  Choice choice{.config = index};
  if (config.lanes > 0) {  // narrow, or slim in groups: max_threads / lanes rows a block
    const int rows_per_block = config.max_threads / config.lanes;
    choice.threads = static_cast<unsigned int>(config.max_threads);
    choice.blocks = grid_of((p.rows + rows_per_block - 1) / rows_per_block);
  } else {
    // Whole warps, enough for every chunk when each thread keeps `vectors` of them.
    const std::int64_t threads = (p.chunks + config.vectors - 1) / config.vectors;
    choice.threads = static_cast<unsigned int>((threads + kWarp - 1) / kWarp * kWarp);
    choice.blocks = grid_of(p.rows);
  }
  return choice;
}

}  // namespace

Choice configure(int index, const Problem& p) {
  const Config& config = kConfigs[index];
  Choice choice{.config = index};
  if (config.kind == Kind::wide) return choice;
  switch (refusal_of(config, p)) {
    case Refusal::none:
      return launch_of(index, p);
    case Refusal::layernorm:
      choice.why = std::string("refused: ") + config.name +
                   " is compiled for RMSNorm ops only (LayerNorm's registers spill under its cap)";
      break;
    case Refusal::add_layernorm:
      choice.why = std::string("refused: ") + config.name +
                   " has no add + LayerNorm kernel (its registers spill under the cap)";
      break;
    case Refusal::alignment:
      choice.why = std::string("refused: ") + config.name + " needs rows of whole aligned vectors";
      break;
    case Refusal::width:
      choice.why = std::string("refused: ") + config.name + " holds " +
                   std::to_string(chunks_held(config)) + " chunks of a row, the row spans " +
                   std::to_string(p.chunks);
      break;
  }
  return choice;
}

// [rules]
// The rules, first match wins (chunks: 16-byte pieces of a row; 8 bf16 or 4 fp32 elements).
// Each replaced a choice it ran beside; chapter 09's page and worklog have the comparisons.
//  1. cols <= 1024 and at most 96 chunks (narrow32x3's), or misaligned: the narrow
//     configuration with the fewest lanes x vectors that hold the row.
//     A block per row would give a 576-wide bf16 row (72 chunks) 96 threads, 24 of them idle,
//     and two barriers per reduction; a group of lanes per row keeps lanes busy and reduces
//     with shuffles alone. For RMSNorm ops narrow16x5 (80 chunks) comes before narrow32x3 (96):
//     fewer empty chunks and more rows a block; LayerNorm has no
//     narrow16x5 kernel (it spills at 64 registers).
//     Except add + LayerNorm of 16-bit rows that narrow32x3 would take (65 to 96 aligned
//     chunks): they go to block1, one row per block of as many threads as the row has chunks.
//     narrow32x3 cannot hold a row of residual chunks (residual_first is false: it spills), so
//     each lane loads, adds and stores its 3 chunks one after another, each chunk's loads
//     waiting behind the previous store; block1's thread has one chunk, one round trip.
//     fp32 rows gain nothing by the move, so they keep narrow32x3.
//  2. rows <= 64 (decode): one block per row with as few vectors a thread as fit 1024 threads,
//     so the row is split over as many threads as a block has and the critical path is one
//     16-byte load, one reduction, one store: block1 to 1024 chunks (8192 bf16 columns),
//     block2 to 2048, block8 to 3072; misaligned rows block4_any to 2048.
//  3. many rows of 97 to 256 aligned chunks that still fit 1024 columns (fp32 rows of 388 to
//     1024 columns, 16-bit of 776 to 1024): block2_256x4, one row per block of up to 128
//     threads with 2 vectors each, not narrow32x4 or narrow32x8, whose 32 lanes a row keep 4 or
//     8 vectors each: a thread then issues fewer loads and converts fewer values. Few rows take
//     rule 2 first. Misaligned rows keep the narrow _any kernels (no block was compared for
//     them).
//  4. many rows of at most 1024 aligned chunks (8192 bf16 columns): one row per block, with a
//     register cap sized to that block, chosen by a sweep of every configuration. Without a
//     residual, 4 vectors a thread: block4_128x6 to 512 chunks, block4_256x3 to 1024. With one,
//     2 vectors a thread: block2_256x4, block2_512x2: a thread then moves x and the residual in
//     and h and y out, and more threads with fewer vectors each keep more of those loads in
//     flight. (block8, 8 vectors a thread and the fewest threads a row, was this rule before the
//     sweep, which replaced it: more rows an SM by the register count, fewer threads a row.)
//  5. many 16-bit RMSNorm rows of 1793 to 2048 aligned chunks (14344 to 16384 columns), and
//     LayerNorm rows of 1537 to 2048 (12296 to 16384), no residual: block8_256x2, two blocks
//     of up to 256 threads an SM with 8 vectors each. A block of 4 vectors a thread takes more
//     than 448 threads there, and at chapter 07's 72 registers (RMSNorm) or block4's 80 or so
//     (LayerNorm) an SM holds one such block, so one row; block8_256x2 holds two. Narrower, the
//     4-vector block fits twice and wins. With a residual, block8_256x2 (its residual loaded
//     chunk by chunk) lost everywhere; on fp32 rows too.
//  6. many add + norm rows of exactly 2048 aligned chunks (16384 16-bit or 8192 fp32 columns):
//     block2, one row per block of 1024 threads with 2 vectors each, which the row fills; there
//     it was ahead of chapter 07 and block4. At other widths the block's last warp is part idle
//     and its add + LayerNorm fell far behind, so it stays at this width.
//  7. many 16-bit LayerNorm rows (with or without a residual) of 1025 to 2048 aligned chunks
//     (8200 to 16384 columns) that whole warps of 4 vectors a thread hold exactly (chunks a
//     multiple of 128: 9216, 10240, ..., 16384 columns), and not taken by rules 5 and 6: block4,
//     one row per block of up to 512 threads, whose LayerNorm then takes the one-reduction
//     statistics (balanced.cuh) where chapter 07's kernel reduces twice. Rows that leave the
//     last warp part idle take two reductions in block4 too, so it saves them nothing and they
//     stay with chapter 07 (below 1537 chunks, or with a residual); so do fp32 rows, which
//     block4 does not serve as well (chapter 09's worklog has the comparisons).
//  8. wider or misaligned: chapter 07's launcher (its own register kernels, peeling a
//     misaligned row, then streaming).
// [rules]
Choice choose(const Problem& p) {
  const bool few = p.rows <= kFewRows;
  auto first_that_holds = [&](std::initializer_list<int> configs, unsigned int most_threads,
                              const char* rule) {
    for (int index : configs) {
      if (refusal_of(kConfigs[index], p) != Refusal::none) continue;
      Choice choice = launch_of(index, p);
      if (choice.threads > most_threads) continue;
      choice.why = std::string(rule) + ": " + kConfigs[index].name + " holds the row's " +
                   std::to_string(p.chunks) + " chunks";
      return choice;
    }
    return Choice{.config = -1};
  };
  Choice choice{.config = -1};
  const std::int64_t narrow32x3_least = chunks_held(kConfigs[index_of("narrow32x2")]) + 1;
  const std::int64_t narrow32x3_most = chunks_held(kConfigs[index_of("narrow32x3")]);
  if (p.add && p.centre && p.element_bytes == 2 && p.chunks >= narrow32x3_least &&
      p.chunks <= narrow32x3_most) {
    choice = first_that_holds({index_of("block1")}, 1024,
                              "16-bit add + LayerNorm of 65 to 96 chunks, one row per block "
                              "(narrow32x3 cannot load its residual first)");
  }
  const bool narrow = p.cols <= kNarrowCols;
  const bool wide_for_a_group = p.aligned && p.chunks > narrow32x3_most;
  if (choice.config < 0 && narrow && !wide_for_a_group) {
    choice = first_that_holds(
        {index_of("narrow8x2"), index_of("narrow32x2"), index_of("narrow16x5"),
         index_of("narrow32x3"), index_of("narrow8x2_any"), index_of("narrow32x2_any"),
         index_of("narrow32x3_any"), index_of("narrow32x4_any"), index_of("narrow32x8_any")},
        kNarrowThreads, "narrow row (cols <= 1024), a group of lanes per row");
  }
  if (choice.config < 0 && few) {
    choice = first_that_holds(
        {index_of("block1"), index_of("block2"), index_of("block8"), index_of("block4_any")}, 1024,
        "few rows (<= 64), a row split over up to 1024 threads");
  }
  if (choice.config < 0 && narrow && wide_for_a_group) {
    choice = first_that_holds({index_of("block2_256x4")}, 256,
                              "many narrow rows of 97 to 256 aligned chunks, one row per block, "
                              "2 vectors a thread");
  }
  if (choice.config < 0 && p.add) {
    choice = first_that_holds({index_of("block2_256x4"), index_of("block2_512x2")}, 512,
                              "many rows with a residual, one row per block, 2 vectors a thread");
  }
  if (choice.config < 0 && !p.add) {
    choice = first_that_holds({index_of("block4_128x6"), index_of("block4_256x3")}, 256,
                              "many rows, one row per block, 4 vectors a thread");
  }
  if (choice.config < 0 && !p.add && p.element_bytes == 2 &&
      p.chunks >= (p.centre ? kTwoRowsLayerNormLeast : kTwoRowsRmsNormLeast)) {
    choice = first_that_holds({index_of("block8_256x2")}, 256,
                              "many wide 16-bit rows, two rows an SM: 8 vectors a thread, two "
                              "blocks of up to 256 threads");
  }
  if (choice.config < 0 && p.add && p.chunks == chunks_held(kConfigs[index_of("block2")])) {
    choice = first_that_holds({index_of("block2")}, 1024,
                              "many add + norm rows of 2048 aligned chunks, one row per block of "
                              "1024 threads, 2 vectors a thread");
  }
  const std::int64_t block4_least = chunks_held(kConfigs[index_of("block4_256x3")]) + 1;
  const std::int64_t warp_of_block4 = kWarp * kConfigs[index_of("block4")].vectors;  // chunks
  if (choice.config < 0 && p.centre && p.element_bytes == 2 && p.chunks >= block4_least &&
      p.chunks % warp_of_block4 == 0) {
    choice = first_that_holds({index_of("block4")}, 512,
                              "many 16-bit LayerNorm rows of 1025 to 2048 aligned chunks that "
                              "whole warps hold exactly, one row per block, 4 vectors a thread, "
                              "the one-reduction statistics");
  }
  if (choice.config < 0) {
    choice = configure(index_of("wide"), p);
    choice.why =
        "wider than the table (" + std::to_string(p.chunks) + " chunks): chapter 07's launcher";
  }
  return choice;
}

}  // namespace normlab::kernels::configured
