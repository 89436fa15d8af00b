// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 12 on two GPUs through NCCL (test kind multigpu: skipped below 2 GPUs).
// Each GPU holds one rank's slice of every row: the exercise's slice_moments writes the rank's
// moments at the start of its exchange buffer, chapter 12's exchange_moments all-gathers them
// (ncclAllGather, rank after rank, after the rank's own), and the exercise's merge_statistics
// turns them into the row's statistics on both GPUs. The grader's cases of two ranks
// (ex12_cases.hpp): both GPUs' statistics must have the same bits and match the float64
// LayerNorm reference.
#include "normlab_catch.hpp"

#include <cstring>
#include <iostream>
#include <vector>

#include "ch12.hpp"
#include "ex12_cases.hpp"

namespace {

using namespace normlab;
using namespace normlab::ex12_grader;

constexpr int kRanks = 2;

// One rank's buffers on its GPU: its slice, its exchange buffer (own moments, then every rank's
// gathered), its statistics, each with a poisoned guard.
struct RankBuffers {
  PlacedMatrix slice, exchange, mean, rstd;
};

// Case @p c on the two GPUs of @p group.
CaseResult grade_on_two_gpus(const ch12::Group& group, const SplitCase& c) {
  const HostMatrix x = make_rows(c);
  // The exchange buffer as chapter 12 lays it out: own moments, then every rank's, one float a
  // column of a matrix of moment rows.
  const auto exchange_rows = static_cast<std::int64_t>(
      ch12::exchange_bytes(Op::layernorm, c.rows, kRanks) / (ex12::kMomentFloats * sizeof(float)));
  HostMatrix exchange(DType::f32, exchange_rows + kGuardRows, ex12::kMomentFloats);
  HostMatrix mean(DType::f32, c.rows + kGuardRows, 1), rstd(DType::f32, c.rows + kGuardRows, 1);
  std::vector<RankBuffers> ranks;
  for (int rank = 0; rank < kRanks; ++rank) {
    group.use(rank);
    ranks.push_back({PlacedMatrix(slice_of(x, split_of(c.cols, kRanks, rank)), 0),
                     PlacedMatrix::poisoned_like(exchange, 0), PlacedMatrix::poisoned_like(mean, 0),
                     PlacedMatrix::poisoned_like(rstd, 0)});
    // The uploads and poison ran on the default stream, which the group's streams do not wait for.
    NORMLAB_CHECK(cudaDeviceSynchronize());
  }
  std::vector<void*> buffers;
  for (int rank = 0; rank < kRanks; ++rank) {
    group.use(rank);
    const Split s = split_of(c.cols, kRanks, rank);
    buffers.push_back(ranks[rank].exchange.data());
    ex12::slice_moments(static_cast<const float*>(ranks[rank].slice.data()), s.count + kPad, c.rows,
                        s.count, static_cast<float*>(buffers.back()), group.stream(rank));
  }
  ch12::exchange_moments(Op::layernorm, group, buffers, c.rows);
  for (int rank = 0; rank < kRanks; ++rank) {
    group.use(rank);
    const float* gathered = static_cast<const float*>(buffers[rank]) + moment_floats(c.rows);
    ex12::merge_statistics(gathered, kRanks, c.rows, kEps,
                           static_cast<float*>(ranks[rank].mean.data()),
                           static_cast<float*>(ranks[rank].rstd.data()), group.stream(rank));
  }
  group.synchronize();

  CaseResult result;
  bool same_bits = true;
  for (int rank = 0; rank < kRanks; ++rank) {
    group.use(rank);
    HostMatrix rank_mean(DType::f32, mean.rows(), 1), rank_rstd(DType::f32, rstd.rows(), 1);
    ranks[rank].mean.download(rank_mean);
    ranks[rank].rstd.download(rank_rstd);
    ranks[rank].exchange.download(exchange);
    if (rank == 0) {
      result = compare_statistics(c, x, rank_mean, rank_rstd);
      mean = rank_mean;
      rstd = rank_rstd;
    } else {
      same_bits = same_bits && std::memcmp(mean.data(), rank_mean.data(), mean.bytes()) == 0 &&
                  std::memcmp(rstd.data(), rank_rstd.data(), rstd.bytes()) == 0;
    }
    result.reports.push_back(moments_guard(exchange, exchange_rows));
  }
  if (!same_bits) {
    // Both ranks merge the same gathered moments: different bits mean a merge that is not the
    // same computation on each (an order that depends on the rank, a race).
    CompareReport differ;
    differ.what = "rank 1's statistics, not rank 0's bits";
    differ.mismatches = 1;
    result.reports.push_back(differ);
  }
  for (int rank = 0; rank < kRanks; ++rank) {
    group.use(rank);
    ranks[rank] = RankBuffers{};  // freed on its own GPU
  }
  return result;
}

}  // namespace

TEST_CASE("ex12 on two GPUs: moments all-gathered through NCCL, merged on both", "[ex12][nccl]") {
  // The grader's split is chapter 12's.
  for (const SplitCase& c : correctness_cases()) {
    for (int rank = 0; rank < c.ranks; ++rank) {
      const ch12::Columns chapter = ch12::columns_of(c.cols, c.ranks, rank);
      const Split grader = split_of(c.cols, c.ranks, rank);
      REQUIRE(chapter.first == grader.first);
      REQUIRE(chapter.count == grader.count);
    }
  }
  const ch12::Group group(kRanks);
  std::vector<SplitCase> cases;
  for (const SplitCase& c : correctness_cases())
    if (c.ranks == kRanks) cases.push_back(c);
  grading::Scorecard card = grading::grade_each(
      kKernel, cases, [&](const SplitCase& c) { return grade_on_two_gpus(group, c); });
  card.kernel += " on 2 GPUs (NCCL all-gather)";
  card.print(std::cout);
  CHECK(card.all_passed());
}
