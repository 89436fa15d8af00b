// SPDX-License-Identifier: Apache-2.0
/// @file slices.hpp
/// @brief A case cut into one slice of columns a rank, each on its rank's GPU, and the slices'
/// results gathered back into one host tensor: how the program and the tests hand a case to
/// the sharded norm and check it against the float64 reference of the whole rows. Also one
/// rank's share of the norm -> row-parallel linear problem.
#pragma once

#include <cuda_fp16.h>

#include <array>
#include <functional>
#include <vector>

#include "ch12.hpp"
#include "normlab/buffer.hpp"
#include "normlab/host_matrix.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/runner.hpp"
#include "overlap.hpp"
#include "reference.hpp"

namespace normlab::ch12 {

/// Columns @p c of every row of @p host to a dense device matrix (rows x c.count), or back.
void columns_to_device(const HostMatrix& host, Columns c, void* device);
void columns_to_host(const void* device, Columns c, HostMatrix& host);

/// One rank's share of a case, on the GPU that was current when it was made: each tensor's
/// columns (an activation's or a parameter's; a per-row statistic whole), the exchange buffer,
/// and the call that names them.
struct RankShare {
  Columns columns;
  std::array<DeviceBuffer<unsigned char>, kTensorCount> tensors;
  DeviceBuffer<unsigned char> exchange;
  NormCall call;
};

/// The share of case @p c held by the rank of @p ranks whose columns are @p own: its inputs
/// copied from @p inputs, its results (shaped as in @p results) poisoned, an exchange buffer of
/// exchange_bytes(c.op, rows, ranks).
RankShare share_of(const Case& c, const HostTensors& inputs, const HostTensors& results,
                   Columns own, int ranks);

/// Downloads every rank's results into @p results (the per-row statistics: rank 0's), and says
/// whether every rank's statistics equal rank 0's bit for bit. @p use_gpu_of(rank) makes the
/// GPU holding shares[rank] current (Group::use; nothing when every share is on one GPU).
bool collect(const Case& c, const std::vector<RankShare>& shares, HostTensors& results,
             const std::function<void(int rank)>& use_gpu_of);

/// Frees every rank's device memory with that rank's GPU current.
template <typename Share>
void release(const Group& group, std::vector<Share>& shares) {
  for (int rank = 0; rank < static_cast<int>(shares.size()); ++rank) {
    group.use(rank);
    shares[rank] = Share{};
  }
}

/// One rank's tensors of the norm -> linear problem, on its GPU (LinearShard's, owned).
struct LinearShare {
  DeviceBuffer<__half> x, g, w, w_folded, y;
  LinearShard shard() const { return {x.data(), g.data(), w.data(), w_folded.data(), y.data()}; }
};

/// Every rank's share of a norm -> linear problem, each on its GPU, and the float64 reference
/// of each rank's partial product on the rows checked.
struct LinearShares {
  std::int64_t k_cols = 0, n_cols = 0;
  std::vector<LinearShare> shares;
  std::vector<LinearShard> shards;
  std::vector<ch11::Reference> references;
};

/// The shares of @p p over @p group (x's columns and W's rows split by columns_of), y unset,
/// with the references of rows @p rows_checked.
LinearShares linear_shares(const Group& group, const ch11::Problem& p,
                           const std::vector<std::int64_t>& rows_checked);

/// One step of @p schedule on every rank of @p layer, each rank's y poisoned first, then each
/// rank's y against its reference.
std::vector<ch11::Verdict> check_step(const Group& group, ShardedNormLinear& layer,
                                      Schedule schedule, LinearShares& linear);

}  // namespace normlab::ch12
