// SPDX-License-Identifier: Apache-2.0
// Exercise 13: the pruning rule of the tuner's search (ex13.hpp).
//
// A configuration keeps a row in registers, 16 bytes (a chunk) at a time: a narrow one gives a
// row a group of `lanes` lanes holding `vectors` chunks each, a block one gives it a block of up
// to `max_threads` threads holding `vectors` chunks each. A row that spans more chunks than
// that cannot run there, and one off the 16-byte grid cannot run where the kernels were compiled
// for whole aligned chunks; nor can a LayerNorm where only RMSNorm was compiled (its registers
// spilled under the configuration's cap). The tuner prunes all of them before timing anything.
#include "ex13.hpp"

namespace normlab::ex13 {

namespace configured = kernels::configured;

constexpr std::int64_t kChunkBytes = 16;

const char* name_of(Fit fit) {
  switch (fit) {
    case Fit::holds:
      return "holds";
    case Fit::rmsnorm_only:
      return "rmsnorm_only";
    case Fit::off_grid:
      return "off_grid";
    default:
      return "too_wide";
  }
}

std::int64_t chunks_spanned(const Row& row) {
  // TODO(ex13) begin: the chunks the row spans
  // A chunk is 16 bytes: 16 / element_bytes elements. The row's first chunk also holds the
  // `lead` elements before the row, and its last chunk may be only partly the row's.
  const std::int64_t width = kChunkBytes / row.element_bytes;  // elements a chunk
  return (row.lead + row.cols + width - 1) / width;
  // TODO(ex13) end
}

std::int64_t chunks_kept(const configured::Config& config) {
  // TODO(ex13) begin: the chunks a configuration keeps of one row
  // The row's group of lanes where the configuration has one (narrow, some slim), else the
  // row's block (block, the other slim, staged); wide: any row (0).
  switch (config.kind) {
    case configured::Kind::narrow:
    case configured::Kind::block:
    case configured::Kind::slim:
    case configured::Kind::staged:
      return std::int64_t{config.lanes > 0 ? config.lanes : config.max_threads} * config.vectors;
    default:
      return 0;
  }
  // TODO(ex13) end
}

Fit fit_of(const configured::Config& config, const Row& row) {
  // TODO(ex13) begin: holds, or the first reason it does not
  // In order: a LayerNorm row on a configuration compiled for RMSNorm only; a row that is not
  // whole aligned chunks (it starts off the grid, or its last chunk is partly empty) on one
  // compiled for aligned rows; a row wider than the chunks it keeps (chunks_kept: 0 is any).
  if (row.layernorm && !config.layernorm) return Fit::rmsnorm_only;
  const bool whole_chunks = row.lead == 0 && row.cols * row.element_bytes % kChunkBytes == 0;
  if (config.aligned && !whole_chunks) return Fit::off_grid;
  const std::int64_t kept = chunks_kept(config);
  if (kept != 0 && chunks_spanned(row) > kept) return Fit::too_wide;
  return Fit::holds;
  // TODO(ex13) end
}

}  // namespace normlab::ex13
