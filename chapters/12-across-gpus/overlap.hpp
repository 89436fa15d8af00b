// SPDX-License-Identifier: Apache-2.0
/// @file overlap.hpp
/// @brief Chapter 12, part 3: RMSNorm over rows split across GPUs followed by the row-parallel
/// linear layer of tensor parallelism (W's rows split as X's columns, each GPU's product a
/// partial sum the layer then adds across GPUs). With chapter 11's deferred normalisation each
/// GPU multiplies its raw slice by its rows of W* = diag(g) · W while the moments travel, and
/// scales its product's rows by 1/RMS, the same on every GPU, afterwards. fp16, as chapter 11.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ch12.hpp"

namespace normlab::ch12 {

/// rstd[r] = 1 / sqrt(m2 / cols + eps) from the all-reduced moments about zero at the start of
/// an exchange buffer (exchange_moments for RMSNorm), @p cols the whole row's width.
void rstd_from_moments(const void* exchange, std::int64_t rows, std::int64_t cols, float eps,
                       float* rstd, cudaStream_t stream);

/// The order of a step's work on each GPU.
enum class Schedule {
  normalise_first,  ///< moments, all-reduce, the slice normalised (x̂ ⊙ g), GEMM with W
  deferred,         ///< moments, all-reduce, 1/RMS, GEMM on raw x with W*, rows scaled
  overlapped,       ///< deferred, the all-reduce and 1/RMS on a second stream under the GEMM
};
const char* name_of(Schedule schedule);

/// One GPU's tensors, on that GPU: x its columns of every row (rows x k, stride k), g and W its
/// rows of them (k, k x n), W* = diag(g) · W folded once (chapter 11), y its partial product
/// (rows x n).
struct LinearShard {
  const __half* x = nullptr;
  const __half* g = nullptr;
  const __half* w = nullptr;
  const __half* w_folded = nullptr;
  __half* y = nullptr;
};

/// One stage of one GPU's step, in microseconds from the step's start on that GPU.
struct Stage {
  int rank = 0;
  std::string stream;  ///< "compute" or "comm"
  std::string stage;
  double start_us = 0.0, end_us = 0.0;
};

/// Y = rmsnorm(X; g, eps) · W for X of rows x k_cols split across @p group by columns
/// (columns_of) and W of k_cols x n_cols split by rows the same way: each GPU's y is its
/// partial product. Holds each GPU's cuBLASLt plans, second stream, events and buffers.
class ShardedNormLinear {
 public:
  ShardedNormLinear(const Group& group, std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols,
                    float eps);
  ~ShardedNormLinear();
  ShardedNormLinear(const ShardedNormLinear&) = delete;
  ShardedNormLinear& operator=(const ShardedNormLinear&) = delete;

  /// Enqueues one step on every GPU. std::invalid_argument naming the argument (a shard count
  /// other than the group's, a null tensor) before anything is launched.
  void run(Schedule schedule, const std::vector<LinearShard>& shards);
  /// The baseline's parts, each alone on every GPU: the GEMM (raw x by W*), and the norm's own
  /// passes without the exchange (moments, 1/RMS of the local moments, rows scaled).
  void gemm_only(const std::vector<LinearShard>& shards);
  void norm_passes_only(const std::vector<LinearShard>& shards);
  /// Runs one step of @p schedule (deferred or overlapped) with an event between every two
  /// stages, waits for it, and returns every GPU's stages.
  std::vector<Stage> timeline(Schedule schedule, const std::vector<LinearShard>& shards);

 private:
  struct Rank;
  using Marks = std::vector<std::vector<cudaEvent_t>>;  // [rank][mark], timeline() only
  void enqueue(Schedule schedule, const std::vector<LinearShard>& shards, Marks* marks);
  static void mark(Marks* marks, int rank, int which, cudaStream_t stream);
  void check(const std::vector<LinearShard>& shards) const;
  void moments(int rank, const LinearShard& shard, cudaStream_t stream);

  const Group& group_;
  std::int64_t rows_, k_cols_, n_cols_;
  float eps_;
  std::vector<std::unique_ptr<Rank>> ranks_;
};

}  // namespace normlab::ch12
