// SPDX-License-Identifier: Apache-2.0
// Chapter 12 across every GPU this process sees, through NCCL (test kind multigpu: skipped
// below 2 GPUs). Every op sharded over the GPUs against the float64 reference of the whole
// rows, on ragged and even splits up to 16384 x 8192; every rank's statistics alike bit for
// bit; the same bits from run to run; shards whose rows differ refused by name before any rank
// is touched; the norm -> row-parallel linear layer by its three schedules, right on every rank.
#include "normlab_catch.hpp"

#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "ch12.hpp"
#include "ch12_shares.hpp"
#include "grading.hpp"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/runner.hpp"
#include "overlap.hpp"
#include "reference.hpp"
#include "slices.hpp"

namespace {

using namespace normlab;
using namespace normlab::ch12;
using namespace normlab::ch12_shares;

// One case sharded over @p group: the inputs made once on the host, each rank's columns on its
// GPU; run() poisons every rank's results, runs one step and gathers them.
class ShardedCase {
 public:
  ShardedCase(const Group& group, const Case& c)
      : group_(group), case_(c), inputs_(make_inputs(c)), results_(make_results(c)) {
    const int ranks = group.size();
    for (int rank = 0; rank < ranks; ++rank) {
      group.use(rank);
      shares_.push_back(
          share_of(c, inputs_, results_, columns_of(c.shape.cols, ranks, rank), ranks));
      shares_.back().exchange.poison(group.stream(rank));  // before the stages, which write it
      calls_.push_back(shares_.back().call);
      exchange_.push_back(shares_.back().exchange.data());
    }
  }
  ~ShardedCase() { release(group_, shares_); }
  ShardedCase(const ShardedCase&) = delete;
  ShardedCase& operator=(const ShardedCase&) = delete;

  std::vector<NormCall>& calls() { return calls_; }
  const std::vector<void*>& exchange() const { return exchange_; }
  const HostTensors& results() const { return results_; }

  /// One step with every rank's results poisoned first; says whether every rank's statistics
  /// have rank 0's bits.
  bool run() {
    for (int rank = 0; rank < group_.size(); ++rank) {
      group_.use(rank);
      for_each_result(case_, shares_[rank], [&](DeviceBuffer<unsigned char>& result) {
        result.poison(group_.stream(rank));
      });
    }
    sharded_norm(group_, calls_, exchange_, case_.shape.cols);
    group_.synchronize();
    return collect(case_, shares_, results_, [&](int rank) { group_.use(rank); });
  }

  CaseResult compare() const {
    return {
        .kernel = "ch12::sharded_norm",
        .case_description = case_.describe() + " over " + std::to_string(group_.size()) + " GPUs",
        .reports = compare_results(case_, inputs_, results_)};
  }

  /// Whether every rank's results and exchange buffer still hold nothing but poison.
  bool untouched() const {
    bool poison = true;
    for (int rank = 0; rank < group_.size(); ++rank) {
      group_.use(rank);
      poison = poison && ch12_shares::untouched(case_, shares_[rank]);
    }
    return poison;
  }

 private:
  const Group& group_;
  Case case_;
  HostTensors inputs_, results_;
  std::vector<RankShare> shares_;
  std::vector<NormCall> calls_;
  std::vector<void*> exchange_;
};

}  // namespace

TEST_CASE("ch12 over every GPU: every op, ragged and even splits, against float64",
          "[ch12][multigpu]") {
  const Group group(visible_gpus());
  REQUIRE(group.size() >= 2);
  grading::Scorecard card;
  card.kernel = "ch12::sharded_norm over " + std::to_string(group.size()) + " GPUs";
  auto grade = [&](const Case& c) {
    ShardedCase sharded(group, c);
    const bool statistics_agree = sharded.run();
    CaseResult result = sharded.compare();
    if (!statistics_agree) result.case_description += ": the ranks' statistics differ";
    ++card.total;
    if (result.passed() && statistics_agree) {
      ++card.passed;
    } else {
      card.failures.push_back(std::move(result));
    }
  };
  std::uint64_t seed = 12100;
  for (Op op : kOps) {
    for (DType dtype : {DType::bf16, DType::f32})
      for (std::int64_t cols : {31, 1025, 8191, 8192})
        for (std::int64_t rows : {1, 7, 300})
          grade(make_case(op, {dtype, dtype}, rows, cols, seed++));
    grade(make_case(op, {DType::f16, DType::f32}, 7, 4099, seed++));
  }
  // The acceptance's shape: 16384 rows of 8192 bf16 columns.
  grade(make_case(Op::rmsnorm, {DType::bf16, DType::bf16}, 16384, 8192, seed++));
  grade(make_case(Op::layernorm, {DType::bf16, DType::bf16}, 16384, 8192, seed++));
  card.print(std::cout);
  INFO(card.failed_cases());
  CHECK(card.all_passed());
}

TEST_CASE("ch12 over every GPU: three runs give the same bits", "[ch12][multigpu]") {
  const Group group(visible_gpus());
  REQUIRE(group.size() >= 2);
  std::uint64_t seed = 12200;
  for (Op op : kOps) {
    for (DType dtype : {DType::bf16, DType::f32}) {
      const Case c = make_case(op, {dtype, dtype}, 300, 8191, seed++);
      ShardedCase sharded(group, c);
      REQUIRE(sharded.run());
      const HostTensors first = sharded.results();
      for (int again = 0; again < 2; ++again) {
        REQUIRE(sharded.run());
        for (const TensorSpec& spec : tensors_of(op)) {
          if (!present(spec, c) || spec.role == Role::input) continue;
          const HostMatrix& before = at(first, spec.tensor);
          const HostMatrix& now = at(sharded.results(), spec.tensor);
          INFO(c.describe() << ", " << name_of(spec.tensor) << ", run " << again + 2);
          CHECK(std::memcmp(before.data(), now.data(), before.bytes()) == 0);
        }
      }
    }
  }
}

TEST_CASE("ch12 over every GPU: shards with different rows are refused, no rank touched",
          "[ch12][multigpu]") {
  const Group group(visible_gpus());
  REQUIRE(group.size() >= 2);
  ShardedCase sharded(group,
                      make_case(Op::add_layernorm, {DType::bf16, DType::f32}, 7, 1025, 12300));
  sharded.calls()[1].rows -= 1;
  CHECK_THROWS_WITH(sharded_norm(group, sharded.calls(), sharded.exchange(), 1025),
                    Catch::Contains("'shards[1]'") && Catch::Contains("as many rows"));
  group.synchronize();  // the poison, enqueued on the group's streams
  CHECK(sharded.untouched());
}

TEST_CASE("ch12 over every GPU: the norm -> row-parallel linear, every schedule, every rank",
          "[ch12][multigpu]") {
  const Group group(visible_gpus());
  REQUIRE(group.size() >= 2);
  const int ranks = group.size();
  struct Shape {
    std::int64_t tokens, k_cols, n_cols;
  };
  for (const Shape& s : {Shape{64, 1000, 257}, Shape{300, 4096, 1024}}) {
    const ch11::Problem p = ch11::random_problem(s.tokens, s.k_cols, s.n_cols, 1210);
    LinearShares linear = linear_shares(group, p, ch11::sample_rows(s.tokens, 16));
    {
      ShardedNormLinear layer(group, s.tokens, s.k_cols, s.n_cols, p.eps);
      std::vector<__half> y(static_cast<std::size_t>(s.tokens * s.n_cols));
      for (Schedule schedule :
           {Schedule::normalise_first, Schedule::deferred, Schedule::overlapped}) {
        const std::vector<ch11::Verdict> verdicts = check_step(group, layer, schedule, linear);
        for (int rank = 0; rank < ranks; ++rank) {
          INFO(name_of(schedule) << ", " << s.tokens << " x " << s.k_cols << " -> " << s.n_cols
                                 << ", rank " << rank << ": " << verdicts[rank].report);
          CHECK(verdicts[rank].passed);
          // The check tells the ranks apart: this rank's partial product is not the next's.
          group.use(rank);
          linear.shares[rank].y.download(y.data());
          const int next = (rank + 1) % ranks;
          CHECK_FALSE(ch11::compare(linear.references[next], y, s.n_cols, s.k_cols).passed);
        }
      }
    }
    release(group, linear.shares);
  }
}
