// SPDX-License-Identifier: Apache-2.0
// Chapter 12: a norm over rows split across GPUs.
//
// Chapter 10's split row reads a row twice because no block holds all of it: pass 1 reduces
// each part to its moments, pass 2 merges them and normalises. Here the parts are on different
// GPUs, so the moments travel between the passes through NCCL. The passes are chapter 10's,
// resized to a GPU's slice (passes.cu); what this chapter adds is the exchange and the reason
// it differs for RMSNorm and LayerNorm.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "ch12.hpp"
#include "normlab/check.hpp"
#include "passes.cuh"
#include "typed_call.hpp"
#include "validate_tensors.hpp"

namespace normlab::ch12 {

namespace {

// A row's moments as the kernels write them: count, mean and M2, three floats.
constexpr std::size_t kMomentFloats = 3;
constexpr std::size_t kMomentBytes = kMomentFloats * sizeof(float);

void check_forward(const char* fn, Op op) {
  check_argument(is_forward_norm(op), fn, "op",
                 std::string("must be a forward norm, not ") + name_of(op));
}

// The moments are device::Moments (a type of device code): here, bytes at an address.
device::Moments* own_moments(void* exchange) {
  return static_cast<device::Moments*>(exchange);
}

// Where the gathered moments start: after the rank's own (LayerNorm only).
void* gathered_moments(void* exchange, std::int64_t rows) {
  return static_cast<unsigned char*>(exchange) + rows * kMomentBytes;
}

// Calls launch.template operator()<kCentre, kAdd>() for @p op.
template <typename Launch>
void for_op(Op op, Launch&& launch) {
  switch (op) {
    case Op::rmsnorm:
      return launch.template operator()<false, false>();
    case Op::layernorm:
      return launch.template operator()<true, false>();
    case Op::add_rmsnorm:
      return launch.template operator()<false, true>();
    default:
      return launch.template operator()<true, true>();
  }
}

// What pass 2 merges for each row: RMSNorm's single all-reduced moments; LayerNorm's, one a
// rank, rank after rank (all-gather's layout: rank p's row r at p * rows + r).
Exchanged exchanged_moments(Op op, void* exchange, std::int64_t rows, int ranks,
                            std::int64_t cols) {
  if (!is_layernorm(op)) return {own_moments(exchange), 1, rows, cols};
  return {static_cast<const device::Moments*>(gathered_moments(exchange, rows)), ranks, rows, cols};
}

// The exchange buffer every stage writes or reads.
void check_exchange(const char* fn, const void* exchange) {
  check_argument(exchange != nullptr && reinterpret_cast<std::uintptr_t>(exchange) % 16 == 0, fn,
                 "exchange", "must be a 16-byte aligned buffer of exchange_bytes()");
}

}  // namespace

std::size_t exchange_bytes(Op op, std::int64_t rows, int ranks) {
  check_forward("ch12::exchange_bytes", op);
  check_argument(rows >= 0, "ch12::exchange_bytes", "rows", "must not be negative");
  check_argument(ranks >= 1, "ch12::exchange_bytes", "ranks", "must be at least 1");
  const std::int64_t copies = is_layernorm(op) ? 1 + ranks : 1;
  return static_cast<std::size_t>(rows * copies) * kMomentBytes;
}

template <typename T, typename P>
void partial_moments(Op op, const Shard<T, P>& shard, cudaStream_t stream) {
  const char* fn = "ch12::partial_moments";
  check_forward(fn, op);
  const Tensors<T, P>& t = shard.slice;
  validate_shape(fn, t.rows, t.cols);
  validate_tensor(fn, "x", t.x, t.rows, t.cols, t.x_stride);
  if (is_add(op)) {
    validate_tensor(fn, "residual", t.residual, t.rows, t.cols, t.residual_stride);
    validate_tensor(fn, "residual_out", t.residual_out, t.rows, t.cols, t.residual_out_stride);
  }
  if (t.rows == 0) return;
  check_exchange(fn, shard.exchange);
  for_op(op, [&]<bool kCentre, bool kAdd>() {
    launch_slice_moments<T, P, kCentre, kAdd>(shard.slice, own_moments(shard.exchange), stream);
  });
}

// [exchange]
void exchange_moments(Op op, const Group& group, const std::vector<void*>& exchange,
                      std::int64_t rows, const std::vector<cudaStream_t>& streams) {
  const char* fn = "ch12::exchange_moments";
  check_forward(fn, op);
  check_argument(static_cast<int>(exchange.size()) == group.size(), fn, "exchange",
                 "must hold one buffer a rank");
  check_argument(streams.empty() || static_cast<int>(streams.size()) == group.size(), fn, "streams",
                 "must hold one stream a rank, or none");
  if (rows == 0) return;
  const std::size_t floats = static_cast<std::size_t>(rows) * kMomentFloats;
  // One thread enqueues for every GPU: inside a group NCCL launches each rank's part without
  // waiting for the others, which a blocking call per rank would deadlock on.
  NORMLAB_CHECK_NCCL(ncclGroupStart());
  for (int rank = 0; rank < group.size(); ++rank) {
    float* own = static_cast<float*>(exchange[rank]);
    cudaStream_t stream = streams.empty() ? group.stream(rank) : streams[rank];
    if (is_layernorm(op)) {
      NORMLAB_CHECK_NCCL(ncclAllGather(own, gathered_moments(own, rows), floats, ncclFloat,
                                       group.comm(rank), stream));
    } else {
      NORMLAB_CHECK_NCCL(
          ncclAllReduce(own, own, floats, ncclFloat, ncclSum, group.comm(rank), stream));
    }
  }
  NORMLAB_CHECK_NCCL(ncclGroupEnd());
}
// [exchange]

template <typename T, typename P>
void normalise_slice(Op op, const Shard<T, P>& shard, int ranks, std::int64_t cols,
                     cudaStream_t stream) {
  const char* fn = "ch12::normalise_slice";
  check_forward(fn, op);
  kernels::validate(fn, shard.slice, is_add(op));
  check_argument(ranks >= 1, fn, "ranks", "must be at least 1");
  check_argument(cols >= shard.slice.cols, fn, "cols",
                 "is the whole row's width, at least the slice's");
  if (shard.slice.rows == 0) return;
  check_exchange(fn, shard.exchange);
  const Exchanged exchanged = exchanged_moments(op, shard.exchange, shard.slice.rows, ranks, cols);
  for_op(op, [&]<bool kCentre, bool kAdd>() {
    launch_slice_normalise<T, P, kCentre, kAdd>(shard.slice, exchanged, stream);
  });
}

template <typename T, typename P>
void sharded_norm(Op op, const Group& group, const std::vector<Shard<T, P>>& shards,
                  std::int64_t cols) {
  const char* fn = "ch12::sharded_norm";
  check_forward(fn, op);
  const int ranks = group.size();
  check_argument(static_cast<int>(shards.size()) == ranks, fn, "shards",
                 "must hold one shard a rank of the group (" + std::to_string(ranks) + ")");
  const std::int64_t rows = shards.front().slice.rows;
  std::vector<void*> exchange;
  for (int rank = 0; rank < ranks; ++rank) {
    const Shard<T, P>& shard = shards[rank];
    const std::string which = "shards[" + std::to_string(rank) + "]";
    kernels::validate(fn, shard.slice, is_add(op));
    check_argument(shard.slice.rows == rows, fn, which.c_str(),
                   "must have as many rows as shards[0]");
    check_argument(shard.slice.cols == columns_of(cols, ranks, rank).count, fn, which.c_str(),
                   "must hold columns_of(cols, ranks, rank).count columns");
    if (rows > 0) check_exchange(fn, shard.exchange);
    exchange.push_back(shard.exchange);
  }
  for (int rank = 0; rank < ranks; ++rank) {
    group.use(rank);
    partial_moments(op, shards[rank], group.stream(rank));
  }
  exchange_moments(op, group, exchange, rows);
  for (int rank = 0; rank < ranks; ++rank) {
    group.use(rank);
    normalise_slice(op, shards[rank], ranks, cols, group.stream(rank));
  }
}

void partial_moments(const NormCall& call, void* exchange, cudaStream_t stream) {
  kernels::with_typed_tensors("ch12::partial_moments", call, [&](const auto& slice) {
    partial_moments(call.op, Shard{slice, exchange}, stream);
  });
}

void normalise_slice(const NormCall& call, void* exchange, int ranks, std::int64_t cols,
                     cudaStream_t stream) {
  kernels::with_typed_tensors("ch12::normalise_slice", call, [&](const auto& slice) {
    normalise_slice(call.op, Shard{slice, exchange}, ranks, cols, stream);
  });
}

void sharded_norm(const Group& group, const std::vector<NormCall>& calls,
                  const std::vector<void*>& exchange, std::int64_t cols) {
  const char* fn = "ch12::sharded_norm";
  check_argument(!calls.empty() && calls.size() == exchange.size(), fn, "calls",
                 "must hold one call a rank, as exchange holds one buffer a rank");
  for (const NormCall& call : calls) {
    check_argument(call.op == calls.front().op && call.dtype == calls.front().dtype &&
                       call.weight_dtype == calls.front().weight_dtype,
                   fn, "calls", "must share one op and one dtype pairing");
  }
  kernels::with_dtype_pair(fn, calls.front(), [&]<typename T, typename P>() {
    std::vector<Shard<T, P>> shards;
    for (std::size_t rank = 0; rank < calls.size(); ++rank)
      shards.push_back({kernels::tensors_of<T, P>(calls[rank]), exchange[rank]});
    sharded_norm(calls.front().op, group, shards, cols);
  });
}

#define NORMLAB_CH12_STAGES(T, P)                                                         \
  template void partial_moments(Op, const Shard<T, P>&, cudaStream_t);                    \
  template void normalise_slice(Op, const Shard<T, P>&, int, std::int64_t, cudaStream_t); \
  template void sharded_norm(Op, const Group&, const std::vector<Shard<T, P>>&, std::int64_t);
NORMLAB_CH12_STAGES(float, float)
NORMLAB_CH12_STAGES(__half, __half)
NORMLAB_CH12_STAGES(__half, float)
NORMLAB_CH12_STAGES(__nv_bfloat16, __nv_bfloat16)
NORMLAB_CH12_STAGES(__nv_bfloat16, float)

}  // namespace normlab::ch12
