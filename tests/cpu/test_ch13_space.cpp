// SPDX-License-Identifier: Apache-2.0
// Chapter 13's configuration space on the CPU: a configuration is pruned for the reason the
// launcher gives (too few chunks for the row, rows off the 16-byte grid, compiled for RMSNorm
// only), kept otherwise; chapter 07's launcher is always kept; a row off the grid spans the
// chunks chapter 07's arithmetic counts.
#include "normlab_catch.hpp"

#include <string>

#include "configs.hpp"
#include "space.hpp"

namespace {

using namespace normlab;
namespace configured = kernels::configured;

// The verdict on configuration @p name at @p p: "" kept, else why it was pruned.
std::string verdict(const configured::Problem& p, const char* name) {
  return ch13::space_at(p)[configured::config_index(name)].pruned_why;
}

}  // namespace

TEST_CASE("a row's chunks: whole on the grid, one more where rows start off it", "[ch13]") {
  const configured::Problem aligned = ch13::contiguous_problem(Op::rmsnorm, 4, 576, DType::bf16);
  CHECK(aligned.aligned);
  CHECK(aligned.chunks == 72);
  // 1002 bf16 columns: rows after the first start 4 bytes past the grid, so a row may lead with
  // 7 elements of a chunk: (7 + 1002 + 7) / 8 chunks.
  const configured::Problem odd = ch13::contiguous_problem(Op::rmsnorm, 4, 1002, DType::bf16);
  CHECK_FALSE(odd.aligned);
  CHECK(odd.chunks == 127);
  const configured::Problem fp32 = ch13::contiguous_problem(Op::add_layernorm, 4, 64, DType::f32);
  CHECK((fp32.aligned && fp32.chunks == 16 && fp32.add && fp32.centre));
}

TEST_CASE("each configuration pruned for the launcher's reason, or kept", "[ch13]") {
  const configured::Problem rms = ch13::contiguous_problem(Op::rmsnorm, 8192, 576, DType::bf16);
  CHECK_THAT(verdict(rms, "narrow8x2"),
             Catch::Contains("holds 16 chunks") && Catch::Contains("the row spans 72"));
  CHECK(verdict(rms, "narrow16x5").empty());  // 80 chunks hold 72
  CHECK(verdict(rms, "wide").empty());
  const configured::Problem ln = ch13::contiguous_problem(Op::layernorm, 8192, 576, DType::bf16);
  CHECK_THAT(verdict(ln, "narrow16x5"), Catch::Contains("RMSNorm ops only"));
  const configured::Problem odd = ch13::contiguous_problem(Op::rmsnorm, 8192, 1001, DType::bf16);
  CHECK_THAT(verdict(odd, "narrow32x4"), Catch::Contains("aligned vectors"));
  CHECK(verdict(odd, "narrow32x4_any").empty());  // 128 chunks hold 126
  CHECK_THAT(verdict(odd, "narrow8x2_any"), Catch::Contains("holds 16 chunks"));
  // Exactly full holds; one chunk more does not.
  CHECK(verdict(ch13::contiguous_problem(Op::rmsnorm, 1, 128, DType::bf16), "narrow8x2").empty());
  CHECK_FALSE(
      verdict(ch13::contiguous_problem(Op::rmsnorm, 1, 136, DType::bf16), "narrow8x2").empty());
}

TEST_CASE("the space keeps what configure() takes; the rules pick a kept one", "[ch13]") {
  for (const std::int64_t cols : {64, 576, 1001, 4096, 16384, 65536}) {
    const configured::Problem p = ch13::contiguous_problem(Op::add_rmsnorm, 300, cols, DType::bf16);
    const auto space = ch13::space_at(p);
    REQUIRE(space.size() == static_cast<std::size_t>(configured::kConfigCount));
    const configured::Choice rules = configured::choose(p);
    INFO(cols);
    CHECK(space[rules.config].pruned_why.empty());
    CHECK(ch13::rules_pick(p).rfind(configured::kConfigs[rules.config].name, 0) == 0);
    for (const ch13::Place& place : space)
      CHECK(place.pruned_why.empty() == configured::configure(place.config, p).why.empty());
  }
}
