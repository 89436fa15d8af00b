// SPDX-License-Identifier: Apache-2.0
// A case's slices, one a rank (slices.hpp).
#include "slices.hpp"

#include <algorithm>
#include <cstring>

#include "ch11.cuh"
#include "normlab/check.hpp"

namespace normlab::ch12 {

void columns_to_device(const HostMatrix& host, Columns c, void* device) {
  const std::size_t e = size_of(host.dtype());
  NORMLAB_CHECK(cudaMemcpy2D(device, c.count * e,
                             static_cast<const unsigned char*>(host.data()) + c.first * e,
                             host.stride() * e, c.count * e, host.rows(), cudaMemcpyHostToDevice));
}

void columns_to_host(const void* device, Columns c, HostMatrix& host) {
  const std::size_t e = size_of(host.dtype());
  NORMLAB_CHECK(cudaMemcpy2D(static_cast<unsigned char*>(host.data()) + c.first * e,
                             host.stride() * e, device, c.count * e, c.count * e, host.rows(),
                             cudaMemcpyDeviceToHost));
}

namespace {

// The columns of @p spec's tensor a rank holds: its own for activations and parameters, the
// whole (one column) for a per-row statistic.
Columns held(const TensorSpec& spec, Columns own) {
  return spec.extent == Extent::per_row ? Columns{0, 1} : own;
}

}  // namespace

RankShare share_of(const Case& c, const HostTensors& inputs, const HostTensors& results,
                   Columns own, int ranks) {
  RankShare share{.columns = own};
  share.call = {.op = c.op,
                .dtype = c.shape.dtype,
                .weight_dtype = c.shape.weight_dtype,
                .rows = c.shape.rows,
                .cols = own.count,
                .eps = c.eps,
                .weight_plus_one = c.weight_plus_one};
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!present(spec, c)) continue;
    const bool input = spec.role == Role::input;
    const HostMatrix& host = at(input ? inputs : results, spec.tensor);
    const Columns cols = held(spec, own);
    auto& device = share.tensors[static_cast<int>(spec.tensor)];
    device = DeviceBuffer<unsigned char>(
        std::max<std::size_t>(1, host.rows() * cols.count * size_of(host.dtype())));
    if (input) {
      columns_to_device(host, cols, device.data());
    } else {
      device.poison();
    }
    bind(share.call, spec.tensor, device.data(), spec.extent == Extent::matrix ? cols.count : 0);
  }
  share.exchange = DeviceBuffer<unsigned char>(
      std::max<std::size_t>(16, exchange_bytes(c.op, c.shape.rows, ranks)));
  // The uploads and the poison ran on the default stream, which the group's streams (created
  // non-blocking) do not wait for: done before any of them reads or writes these buffers.
  NORMLAB_CHECK(cudaDeviceSynchronize());
  return share;
}

bool collect(const Case& c, const std::vector<RankShare>& shares, HostTensors& results,
             const std::function<void(int rank)>& use_gpu_of) {
  bool statistics_agree = true;
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!present(spec, c) || spec.role == Role::input) continue;
    HostMatrix& host = at(results, spec.tensor);
    for (int rank = 0; rank < static_cast<int>(shares.size()); ++rank) {
      use_gpu_of(rank);
      const void* device = shares[rank].tensors[static_cast<int>(spec.tensor)].data();
      const Columns cols = held(spec, shares[rank].columns);
      if (spec.extent != Extent::per_row || rank == 0) {
        columns_to_host(device, cols, host);
        continue;
      }
      HostMatrix other(host.dtype(), host.rows(), host.cols());
      columns_to_host(device, cols, other);
      statistics_agree =
          statistics_agree && std::memcmp(other.data(), host.data(), host.bytes()) == 0;
    }
  }
  return statistics_agree;
}

namespace {

// The share of @p p of the rank whose columns of X (rows of W) are @p c, on the current GPU.
LinearShare linear_share(const ch11::Problem& p, Columns c) {
  const std::int64_t n = p.n_cols;
  std::vector<__half> x(static_cast<std::size_t>(p.rows * c.count));
  for (std::int64_t r = 0; r < p.rows; ++r)
    std::copy_n(p.x.begin() + r * p.k_cols + c.first, c.count, x.begin() + r * c.count);
  const std::vector<__half> g(p.g.begin() + c.first, p.g.begin() + c.first + c.count);
  const std::vector<__half> w(p.w.begin() + c.first * n, p.w.begin() + (c.first + c.count) * n);
  LinearShare share{on_device(x), on_device(g), on_device(w),
                    on_device(ch11::fold_weights_fp16(g, w, c.count, n)),
                    DeviceBuffer<__half>(static_cast<std::size_t>(p.rows * n))};
  // As in share_of: the uploads done before the group's streams read them.
  NORMLAB_CHECK(cudaDeviceSynchronize());
  return share;
}

}  // namespace

LinearShares linear_shares(const Group& group, const ch11::Problem& p,
                           const std::vector<std::int64_t>& rows_checked) {
  LinearShares linear{.k_cols = p.k_cols, .n_cols = p.n_cols};
  for (int rank = 0; rank < group.size(); ++rank) {
    const Columns c = columns_of(p.k_cols, group.size(), rank);
    group.use(rank);
    linear.shares.push_back(linear_share(p, c));
    linear.shards.push_back(linear.shares.back().shard());
    linear.references.push_back(ch11::reference(p, rows_checked, c.first, c.count));
  }
  return linear;
}

std::vector<ch11::Verdict> check_step(const Group& group, ShardedNormLinear& layer,
                                      Schedule schedule, LinearShares& linear) {
  for (int rank = 0; rank < group.size(); ++rank) {
    group.use(rank);
    linear.shares[rank].y.poison(group.stream(rank));
  }
  layer.run(schedule, linear.shards);
  group.synchronize();
  std::vector<ch11::Verdict> verdicts;
  for (int rank = 0; rank < group.size(); ++rank) {
    group.use(rank);
    std::vector<__half> y(linear.shares[rank].y.size());
    linear.shares[rank].y.download(y.data());
    verdicts.push_back(ch11::compare(linear.references[rank], y, linear.n_cols, linear.k_cols));
  }
  return verdicts;
}

}  // namespace normlab::ch12
