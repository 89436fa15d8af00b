// SPDX-License-Identifier: Apache-2.0
/// @file ch12.hpp
/// @brief Chapter 12: a row split across GPUs (tensor parallelism). Each GPU holds a slice of
/// the columns of every row; the row's statistics need every GPU's partial moments, which NCCL
/// carries between two passes over the slice (chapter 10's split row, its parts on GPUs).
/// One process drives every GPU: one communicator a GPU from ncclCommInitAll, one stream a GPU,
/// collectives enqueued for all ranks between ncclGroupStart and ncclGroupEnd.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "general.cuh"
#include "normlab/kernel.hpp"
#include "normlab/ops.hpp"

namespace normlab::ch12 {

using kernels::Tensors;

/// Throws std::runtime_error with the expression, file:line and NCCL's error string unless
/// @p result is ncclSuccess.
void check_nccl(ncclResult_t result, const char* expression, const char* file, int line);

/// Checks an NCCL call.
#define NORMLAB_CHECK_NCCL(expression) \
  ::normlab::ch12::check_nccl((expression), #expression, __FILE__, __LINE__)

/// How many CUDA GPUs this process sees (0 without a driver or GPU).
int visible_gpus();

/// GPUs 0 .. size - 1 of this process, an NCCL communicator and a stream on each. NVLink
/// multicast (NVLS) is turned off (NCCL_NVLS_ENABLE=0) unless the environment already says.
class Group {
 public:
  /// std::invalid_argument naming `gpus` when fewer GPUs are visible or gpus < 1.
  explicit Group(int gpus);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  int size() const { return static_cast<int>(comms_.size()); }
  ncclComm_t comm(int rank) const { return comms_.at(rank); }
  cudaStream_t stream(int rank) const { return streams_.at(rank); }
  /// Makes @p rank's GPU the current device of this thread.
  void use(int rank) const;
  /// Waits for every rank's stream.
  void synchronize() const;

 private:
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

/// The columns [first, first + count) of a row of @p cols that @p rank of @p ranks holds: the
/// first cols % ranks ranks hold one column more (a ragged split). std::invalid_argument naming
/// the argument when ranks < 1, rank outside [0, ranks) or cols < ranks (a rank with nothing).
struct Columns {
  std::int64_t first = 0;
  std::int64_t count = 0;
};
Columns columns_of(std::int64_t cols, int ranks, int rank);

/// Bytes of device memory each rank's exchange buffer needs for @p rows rows: its partial
/// moments (12 bytes a row), and for the centred norms the moments gathered from every rank.
std::size_t exchange_bytes(Op op, std::int64_t rows, int ranks);

/// One rank's part of a sharded norm: chapter 07's Tensors over its slice (x, y, and for add +
/// norm residual and residual_out, rows x its columns with their strides; weight and bias its
/// slice of them; rows, cols = its column count, eps; mean and rstd, when given, the row's),
/// and its exchange buffer (exchange_bytes, 16-byte aligned).
template <typename T, typename P>
struct Shard {
  Tensors<T, P> slice;
  void* exchange = nullptr;
};

// [stages]
/// Pass 1 on one rank: the moments of its slice of each row (count, mean, M2; RMSNorm's about
/// zero), into the start of its exchange buffer; add + norm also stores h.
template <typename T, typename P>
void partial_moments(Op op, const Shard<T, P>& shard, cudaStream_t stream);

/// The exchange, every rank's enqueued on its stream: RMSNorm's moments about zero merge by
/// adding them field by field, so NCCL all-reduces them (sum); LayerNorm's (count, mean, M2)
/// merge by Chan's formula, which is no sum NCCL offers, so NCCL all-gathers them, rank after
/// rank, and every rank merges them itself in the same fixed order. @p exchange one buffer a rank;
/// @p streams one a rank, or none for the group's.
void exchange_moments(Op op, const Group& group, const std::vector<void*>& exchange,
                      std::int64_t rows, const std::vector<cudaStream_t>& streams = {});

/// Pass 2 on one rank: each row's statistics from the exchanged moments (the same bits on
/// every rank), then its slice normalised, read a second time. @p cols the whole row's width.
template <typename T, typename P>
void normalise_slice(Op op, const Shard<T, P>& shard, int ranks, std::int64_t cols,
                     cudaStream_t stream);
// [stages]

/// The three stages on every rank: y = norm(x) over rows of @p cols split across @p group,
/// shards[rank] on GPU rank. Checks every argument first (std::invalid_argument naming it:
/// an op that is not a forward norm, a shard count other than the group's size, a slice whose
/// columns are not columns_of(cols, ranks, rank), a missing exchange buffer, ...), so nothing
/// is launched on any rank when it throws.
template <typename T, typename P>
void sharded_norm(Op op, const Group& group, const std::vector<Shard<T, P>>& shards,
                  std::int64_t cols);

/// The stages and the whole step for type-erased calls (the program's and tests' form): one
/// NormCall a rank describing its slice (op, dtypes, rows, cols = its column count, tensors and
/// strides, eps), its dtype pairing one chapter 07 takes; @p exchange one buffer a rank.
void partial_moments(const NormCall& call, void* exchange, cudaStream_t stream);
void normalise_slice(const NormCall& call, void* exchange, int ranks, std::int64_t cols,
                     cudaStream_t stream);
void sharded_norm(const Group& group, const std::vector<NormCall>& calls,
                  const std::vector<void*>& exchange, std::int64_t cols);

}  // namespace normlab::ch12
