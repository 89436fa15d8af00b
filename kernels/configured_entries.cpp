// SPDX-License-Identifier: Apache-2.0
// The configured launcher's type-erased entry point, and one registry entry a configuration and
// op, which the tuner times and the tuned chooser picks, and chapter 09's program sweeps.
#include "configured_entries.hpp"

#include <climits>
#include <string>
#include <vector>

#include "chunk_grid.hpp"
#include "configs.hpp"
#include "configured.cuh"
#include "normlab/kernel.hpp"
#include "normlab/ops.hpp"
#include "typed_call.hpp"

namespace normlab::kernels::configured {

namespace {

constexpr Op kOps[] = {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm};

// "8 lanes a row, 4 vectors each; 2 blocks an SM; rows of up to 32 chunks" (or "a row a block
// of up to 128 threads, ..."; "..., aligned rows" for the configurations that need them).
std::string summary_of(const Config& config) {
  // A group of lanes a row where the configuration has one (narrow, slim in groups), else a block.
  const std::string shape = config.lanes > 0 ? std::to_string(config.lanes) + " lanes a row"
                                             : "a row a block of up to " +
                                                   std::to_string(config.max_threads) + " threads";
  if (config.kind == Kind::staged) {
    return shape + " in shared memory, " + std::to_string(config.vectors) +
           " vectors each; rows of up to " + std::to_string(chunks_held(config)) +
           " chunks on the 16-byte grid, a weight (and a LayerNorm bias) in their dtype";
  }
  if (config.kind == Kind::slim) {
    return shape + ", " + std::to_string(config.vectors) + " vectors each" +
           (config.held ? ", held" : "") + "; rows of up to " +
           std::to_string(chunks_held(config)) +
           " chunks on the 16-byte grid, a weight (and a LayerNorm bias) in their dtype";
  }
  return shape + ", " + std::to_string(config.vectors) + " vectors each; " +
         std::to_string(config.min_blocks) + (config.min_blocks == 1 ? " block" : " blocks") +
         " an SM; rows of up to " + std::to_string(chunks_held(config)) + " chunks" +
         (config.aligned ? " on the 16-byte grid" : "");
}

}  // namespace

void forward(const NormCall& call, cudaStream_t stream, const char* config) {
  with_typed_tensors("kernels::configured::forward", call, [&](const auto& t) {
    switch (call.op) {
      case Op::rmsnorm:
        return rmsnorm(t, stream, config);
      case Op::layernorm:
        return layernorm(t, stream, config);
      case Op::add_rmsnorm:
        return add_rmsnorm(t, stream, config);
      default:
        return add_layernorm(t, stream, config);
    }
  });
}

std::vector<KernelEntry> config_entries() {
  std::vector<KernelEntry> entries;
  for (Op op : kOps) {
    for (const Config& config : kConfigs) {
      if (config.kind == Kind::wide) continue;  // chapter 07's launcher, its own entry
      if (is_layernorm(op) && !config.layernorm) continue;
      if (op == Op::add_layernorm && !has_add_layernorm(config)) continue;
      Capabilities can = every_tensor();
      // The table's own refusal (configure()) is exact; these say what can be said without
      // the row's address: aligned configurations need 16-byte rows, every one holds at most
      // chunks_held 16-byte chunks (a row off the grid spans one more than its bytes fill).
      if (config.aligned) can.alignment_bytes = static_cast<int>(kChunkBytes);
      if (config.kind == Kind::slim || config.kind == Kind::staged) {  // what they refuse
        can.fp32_parameters = false;
        can.optional_parameters = false;
        can.weight_plus_one = false;
        can.two_level_rows = false;
      }
      // A slim kernel counts its rows in 32 bits, one a block or group (slim.cu).
      if (config.kind == Kind::slim) can.max_rows = INT_MAX;
      can.max_row_bytes = (chunks_held(config) - (config.aligned ? 0 : 1)) * kChunkBytes;
      const char* name = config.name;
      entries.push_back({.name = std::string("ch09_") + name_of(op) + "@" + name,
                         .chapter = 9,
                         .summary = summary_of(config),
                         .op = op,
                         .can = can,
                         .launch = [name](const NormCall& call, cudaStream_t stream) {
                           forward(call, stream, name);
                         }});
      // A staged row must fit a block's shared memory, which depends on the GPU (staged.cu).
      if (config.kind == Kind::staged) {
        entries.back().gpu_refusal = [add = is_add(op)](const Requirements& needs) {
          const Shape& s = needs.shape;
          const std::int64_t bytes = s.cols * static_cast<std::int64_t>(size_of(s.dtype));
          return staged_refusal((bytes + kChunkBytes - 1) / kChunkBytes, add);
        };
      }
    }
  }
  return entries;
}

std::vector<KernelEntry> sweep_entries(std::int64_t rows, std::int64_t cols, DType dtype) {
  const int element_bytes = static_cast<int>(size_of(dtype));
  const int width = static_cast<int>(kChunkBytes) / element_bytes;
  Problem p{.rows = rows,
            .cols = cols,
            .element_bytes = element_bytes,
            .aligned = cols % width == 0,
            .chunks = (cols + width - 1) / width};
  std::vector<KernelEntry> entries;
  for (KernelEntry& entry : config_entries()) {
    p.centre = is_layernorm(entry.op);
    const int config = config_index(entry.name.substr(entry.name.find('@') + 1));
    const Choice choice = configure(config, p);
    if (!choice.why.empty()) continue;
    // The entry's capabilities allow a row off the grid one chunk more than its bytes fill, so
    // a configuration for any alignment refuses an aligned row that fills it exactly.
    if (entry.can.max_row_bytes != 0 && cols * element_bytes > entry.can.max_row_bytes) continue;
    entry.can.dtypes = {dtype};
    entry.summary = std::to_string(choice.threads) + " threads a block";
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace normlab::kernels::configured
