// SPDX-License-Identifier: Apache-2.0
// Chapter 12, part 3: the all-reduce hidden behind the GEMM.
//
// Normalising first makes the GEMM wait for the all-reduce: moments, all-reduce, normalise,
// GEMM, in a chain. Chapter 11's deferred path breaks the chain: the GEMM reads raw x (its
// weight folded into W*), and only the final scale needs 1/RMS. So the GEMM can start as soon
// as the moments are written, while NCCL carries them on a second stream; the scale waits for
// both. The all-reduce is then hidden as long as it takes less time than the GEMM.
#include "overlap.hpp"

#include <stdexcept>
#include <string>

#include "ch11.cuh"
#include "lt_gemm.hpp"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"

namespace normlab::ch12 {

const char* name_of(Schedule schedule) {
  switch (schedule) {
    case Schedule::normalise_first:
      return "normalise first";
    case Schedule::deferred:
      return "deferred";
    case Schedule::overlapped:
      return "overlapped";
  }
  throw std::logic_error("ch12: unknown schedule");
}

// One GPU's share of the state: its columns, a second stream for NCCL, the events that join
// the streams, cuBLASLt, and its buffers.
struct ShardedNormLinear::Rank {
  Columns columns;
  cudaStream_t comm = nullptr;
  cudaEvent_t moments_ready = nullptr, rstd_ready = nullptr;
  ch11::LtGemm gemm;
  DeviceBuffer<unsigned char> exchange;
  DeviceBuffer<float> rstd;
  DeviceBuffer<__half> normalised;  // x̂ ⊙ g, normalise_first only

  Rank(Columns c, std::int64_t rows)
      : columns(c),
        exchange(exchange_bytes(Op::rmsnorm, rows, 1)),
        rstd(static_cast<std::size_t>(rows)),
        normalised(static_cast<std::size_t>(rows * c.count)) {
    // NCCL's kernel waits for its peer on the other GPU while it holds an SM; at the highest
    // priority its blocks are placed before the GEMM's next ones as SMs free up, so it runs
    // early and briefly instead of when the GEMM is done.
    int least = 0, greatest = 0;
    NORMLAB_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    NORMLAB_CHECK(cudaStreamCreateWithPriority(&comm, cudaStreamNonBlocking, greatest));
    NORMLAB_CHECK(cudaEventCreateWithFlags(&moments_ready, cudaEventDisableTiming));
    NORMLAB_CHECK(cudaEventCreateWithFlags(&rstd_ready, cudaEventDisableTiming));
  }
  ~Rank() {
    (void)cudaEventDestroy(moments_ready);
    (void)cudaEventDestroy(rstd_ready);
    (void)cudaStreamDestroy(comm);
  }
};

ShardedNormLinear::ShardedNormLinear(const Group& group, std::int64_t rows, std::int64_t k_cols,
                                     std::int64_t n_cols, float eps)
    : group_(group), rows_(rows), k_cols_(k_cols), n_cols_(n_cols), eps_(eps) {
  const char* fn = "ch12::ShardedNormLinear";
  check_argument(rows > 0, fn, "rows", "must be positive");
  check_argument(n_cols > 0, fn, "n_cols", "must be positive");
  check_argument(eps > 0.0f, fn, "eps", "must be positive");
  for (int rank = 0; rank < group.size(); ++rank) {
    group.use(rank);
    ranks_.push_back(std::make_unique<Rank>(columns_of(k_cols, group.size(), rank), rows));
    ranks_.back()->gemm.prepare(rows, ranks_.back()->columns.count, n_cols);
  }
}

ShardedNormLinear::~ShardedNormLinear() {
  for (int rank = 0; rank < static_cast<int>(ranks_.size()); ++rank) {
    (void)cudaSetDevice(rank);  // each rank's memory, streams and handle freed on its GPU
    (void)cudaDeviceSynchronize();
    ranks_[rank].reset();
  }
}

void ShardedNormLinear::check(const std::vector<LinearShard>& shards) const {
  const char* fn = "ch12::ShardedNormLinear";
  check_argument(static_cast<int>(shards.size()) == group_.size(), fn, "shards",
                 "must hold one shard a rank of the group");
  for (const LinearShard& s : shards) {
    check_argument(s.x != nullptr && s.g != nullptr && s.w != nullptr && s.w_folded != nullptr &&
                       s.y != nullptr,
                   fn, "shards", "need x, g, w, w_folded and y on every rank");
  }
}

void ShardedNormLinear::moments(int rank, const LinearShard& shard, cudaStream_t stream) {
  const Columns c = ranks_[rank]->columns;
  Shard<__half, __half> slice{};
  slice.slice.x = shard.x;
  slice.slice.x_stride = c.count;
  slice.slice.rows = rows_;
  slice.slice.cols = c.count;
  slice.slice.eps = eps_;
  slice.exchange = ranks_[rank]->exchange.data();
  partial_moments(Op::rmsnorm, slice, stream);
}

// Where timeline() records: per rank, on the compute stream the step's start, the moments'
// end, the GEMM's end, the scale's start and end; on NCCL's stream the exchange's start and
// end and 1/RMS's end.
enum Mark { kStart, kMoments, kGemm, kScaleStart, kEnd, kExchangeStart, kExchange, kRstd, kMarks };

void ShardedNormLinear::mark(Marks* marks, int rank, int which, cudaStream_t stream) {
  if (marks != nullptr) NORMLAB_CHECK(cudaEventRecord((*marks)[rank][which], stream));
}

// [overlap]
void ShardedNormLinear::enqueue(Schedule schedule, const std::vector<LinearShard>& shards,
                                Marks* marks) {
  check(shards);
  const int gpus = group_.size();
  std::vector<void*> exchange;
  std::vector<cudaStream_t> exchange_streams;
  for (int rank = 0; rank < gpus; ++rank) {
    Rank& r = *ranks_[rank];
    cudaStream_t compute = group_.stream(rank);
    group_.use(rank);
    mark(marks, rank, kStart, compute);
    moments(rank, shards[rank], compute);
    mark(marks, rank, kMoments, compute);
    exchange.push_back(r.exchange.data());
    if (schedule == Schedule::overlapped) {
      // NCCL's stream waits for the moments; the compute stream goes on to the GEMM.
      NORMLAB_CHECK(cudaEventRecord(r.moments_ready, compute));
      NORMLAB_CHECK(cudaStreamWaitEvent(r.comm, r.moments_ready));
      exchange_streams.push_back(r.comm);
    } else {
      exchange_streams.push_back(compute);
    }
    mark(marks, rank, kExchangeStart, exchange_streams.back());
  }
  exchange_moments(Op::rmsnorm, group_, exchange, rows_, exchange_streams);
  for (int rank = 0; rank < gpus; ++rank) {
    Rank& r = *ranks_[rank];
    const LinearShard& s = shards[rank];
    cudaStream_t compute = group_.stream(rank);
    const std::int64_t k = r.columns.count;
    group_.use(rank);
    mark(marks, rank, kExchange, exchange_streams[rank]);
    if (schedule == Schedule::normalise_first) {
      Shard<__half, __half> slice{};
      slice.slice = {.x = s.x,
                     .x_stride = k,
                     .y = r.normalised.data(),
                     .y_stride = k,
                     .weight = s.g,
                     .rows = rows_,
                     .cols = k,
                     .eps = eps_};
      slice.exchange = r.exchange.data();
      normalise_slice(Op::rmsnorm, slice, gpus, k_cols_, compute);
      r.gemm.plain(r.normalised.data(), s.w, s.y, rows_, k, n_cols_, compute);
      continue;
    }
    rstd_from_moments(r.exchange.data(), rows_, k_cols_, eps_, r.rstd.data(),
                      exchange_streams[rank]);
    mark(marks, rank, kRstd, exchange_streams[rank]);
    if (schedule == Schedule::overlapped) NORMLAB_CHECK(cudaEventRecord(r.rstd_ready, r.comm));
    r.gemm.plain(s.x, s.w_folded, s.y, rows_, k, n_cols_, compute);
    mark(marks, rank, kGemm, compute);
    if (schedule == Schedule::overlapped) NORMLAB_CHECK(cudaStreamWaitEvent(compute, r.rstd_ready));
    mark(marks, rank, kScaleStart, compute);
    ch11::scale_rows(s.y, r.rstd.data(), rows_, n_cols_, compute);
    mark(marks, rank, kEnd, compute);
  }
}
// [overlap]

void ShardedNormLinear::run(Schedule schedule, const std::vector<LinearShard>& shards) {
  enqueue(schedule, shards, nullptr);
}

void ShardedNormLinear::gemm_only(const std::vector<LinearShard>& shards) {
  check(shards);
  for (int rank = 0; rank < group_.size(); ++rank) {
    group_.use(rank);
    ranks_[rank]->gemm.plain(shards[rank].x, shards[rank].w_folded, shards[rank].y, rows_,
                             ranks_[rank]->columns.count, n_cols_, group_.stream(rank));
  }
}

void ShardedNormLinear::norm_passes_only(const std::vector<LinearShard>& shards) {
  check(shards);
  for (int rank = 0; rank < group_.size(); ++rank) {
    Rank& r = *ranks_[rank];
    cudaStream_t compute = group_.stream(rank);
    group_.use(rank);
    moments(rank, shards[rank], compute);
    rstd_from_moments(r.exchange.data(), rows_, k_cols_, eps_, r.rstd.data(), compute);
    ch11::scale_rows(shards[rank].y, r.rstd.data(), rows_, n_cols_, compute);
  }
}

std::vector<Stage> ShardedNormLinear::timeline(Schedule schedule,
                                               const std::vector<LinearShard>& shards) {
  check_argument(schedule != Schedule::normalise_first, "ch12::ShardedNormLinear::timeline",
                 "schedule", "must be deferred or overlapped (the stages timed are theirs)");
  const int gpus = group_.size();
  Marks marks(gpus, std::vector<cudaEvent_t>(kMarks));
  for (int rank = 0; rank < gpus; ++rank) {
    group_.use(rank);
    for (cudaEvent_t& e : marks[rank])
      NORMLAB_CHECK(cudaEventCreate(&e));
  }
  enqueue(schedule, shards, &marks);
  group_.synchronize();
  std::vector<Stage> stages;
  for (int rank = 0; rank < gpus; ++rank) {
    group_.use(rank);
    auto at = [&](int which) {
      float ms = 0.0f;
      NORMLAB_CHECK(cudaEventElapsedTime(&ms, marks[rank][kStart], marks[rank][which]));
      return 1000.0 * ms;
    };
    const char* comm = schedule == Schedule::overlapped ? "comm" : "compute";
    stages.push_back({rank, "compute", "moments", 0.0, at(kMoments)});
    stages.push_back({rank, comm, "all-reduce", at(kExchangeStart), at(kExchange)});
    stages.push_back({rank, comm, "1/RMS", at(kExchange), at(kRstd)});
    // One stream runs the GEMM after 1/RMS; with two, right after the moments.
    const double gemm_start = at(schedule == Schedule::overlapped ? kMoments : kRstd);
    stages.push_back({rank, "compute", "GEMM", gemm_start, at(kGemm)});
    stages.push_back({rank, "compute", "scale rows", at(kScaleStart), at(kEnd)});
    for (cudaEvent_t e : marks[rank])
      NORMLAB_CHECK(cudaEventDestroy(e));
  }
  return stages;
}

}  // namespace normlab::ch12
