// SPDX-License-Identifier: Apache-2.0
// Exercise 10's grader must catch the bugs a DSMEM exchange is prone to. tests/exercises.cmake
// builds this file once for each bug, against the solution with that bug planted into its
// cluster_sum, and each of those test programs runs only the test case tagged with its bug.
// Every case runs the grader's own cases (ex10_cases.hpp).
#include "normlab_catch.hpp"

#include <cstdint>
#include <iostream>
#include <vector>

#include "ex10_cases.hpp"
#include "grading.hpp"

namespace {

using namespace normlab;
using ex10_grader::blocks_holding;
using ex10_grader::correctness_cases;
using ex10_grader::exercise_kernel;

// The planted kernels write every element of y and nothing past a row: they fail by their
// values alone.
void check_values_alone(const CaseResult& result) {
  for (const CompareReport& report : result.reports) {
    CHECK(report.unwritten == 0);
    CHECK(report.guard_overwrites == 0);
  }
}

}  // namespace

// The cluster.sync() between publishing the partial and reading the slots removed. That is a
// race, so its failure is likely, not certain: each block reads a neighbour's slot whenever it
// gets there, and finds this row's partial only if the neighbour has written it by then and
// not yet overwritten it, else another row's (or, on a cluster's first two rows, whatever the
// SM's shared memory held). Nothing orders them: with no cluster barrier left in the loop, the four
// blocks drift apart by however long their loads take; and even a block's own slot, written by
// its thread 0, is read by its other warps with no barrier between. A case passes only if
// every one of these reads, 3 remote slots and the own one for each warp of each block of each
// row, happened to come after the write: for the 512-row cases, tens of thousands of reads.
// Up to kPasses passes over all the cases make a pass that loses no race rarer still; a test
// that sees none fails, so this can only err towards a false alarm.
TEST_CASE("ex10's grader rejects reading the slots before the cluster.sync()", "[missing_sync]") {
  constexpr int kPasses = 3;
  const KernelEntry kernel = exercise_kernel();
  const std::vector<Case> cases = correctness_cases();
  int failed = 0;
  for (int pass = 0; pass < kPasses && failed == 0; ++pass) {
    const grading::Scorecard card = grading::grade(kernel, cases);
    card.print(std::cout);
    REQUIRE(card.total == static_cast<int>(cases.size()));
    failed = card.total - card.passed;
    for (const CaseResult& failure : card.failures)
      check_values_alone(failure);
  }
  CHECK(failed > 0);
}

// Only rank 0's slot read. Rows that lie wholly in block 0's slice are right (the other blocks'
// partials are 0), and must pass. Rows with a sizeable share of their columns past that slice
// (1% or more) must fail. A row with one lone column past it (8193 wide) loses about 1/8193 of
// its sum, which moves y by less than the fp32 tolerance: such a case may go either way, and
// the grader's wider rows are there to catch the bug. Deterministic.
TEST_CASE("ex10's grader rejects a sum of rank 0's slot alone", "[rank_0_only]") {
  const KernelEntry kernel = exercise_kernel();
  int one_block = 0, sizeable_rest = 0;
  for (const Case& c : correctness_cases()) {
    const std::int64_t cols = c.shape.cols;
    const bool in_one_block = blocks_holding(cols) == 1;
    const bool rest_sizeable = (cols - ex10::kSliceCols) * 100 >= cols;
    const CaseResult result = verify(kernel, c);
    INFO(result.describe());
    if (in_one_block) CHECK(result.passed());
    if (rest_sizeable) CHECK_FALSE(result.passed());
    check_values_alone(result);
    one_block += in_one_block ? 1 : 0;
    sizeable_rest += rest_sizeable ? 1 : 0;
  }
  CHECK(one_block > 0);  // the planted kernel is otherwise right
  CHECK(sizeable_rest > 0);
}

// The sum starts from the block's own partial, then adds every slot, its own again. Block 0
// holds part of every row, so every case must fail. Deterministic.
TEST_CASE("ex10's grader rejects a sum that counts the block's own partial twice", "[own_twice]") {
  const std::vector<Case> cases = correctness_cases();
  const grading::Scorecard card = grading::grade(exercise_kernel(), cases);
  card.print(std::cout);
  CHECK(card.total == static_cast<int>(cases.size()));
  CHECK(card.passed == 0);
  for (const CaseResult& failure : card.failures)
    check_values_alone(failure);
}
