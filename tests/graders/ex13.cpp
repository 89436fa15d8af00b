// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 13 (the pruning rule of the tuner's search), on the CPU: chunks_spanned,
// chunks_kept and fit_of over every configuration of chapter 09's table and a few made up
// beside it, bf16 and fp32 rows of many widths (at, one element past and one chunk past each
// configuration's capacity) and every lead, RMSNorm and LayerNorm. Each answer is checked
// against two references: one worked out here from the row's first and last bytes and the
// configuration's threads, and chapter 09's own launcher rule (kernels::configured::configure),
// which the tuner applies.
#include "normlab_catch.hpp"

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "configs.hpp"
#include "ex13.hpp"

namespace {

using namespace normlab;
namespace configured = kernels::configured;
using ex13::Fit;
using ex13::Row;

constexpr std::int64_t kChunk = 16;

// The chunk holding byte @p byte, counted from the start of the row's first chunk (the row's
// elements start `lead` elements into it).
std::int64_t chunk_of_byte(std::int64_t byte) {
  return byte / kChunk;
}

// Chunks from the one holding the row's first byte to the one holding its last.
std::int64_t spanned_by_bytes(const Row& row) {
  const std::int64_t first = std::int64_t{row.lead} * row.element_bytes;
  const std::int64_t last = first + row.cols * row.element_bytes - 1;
  return chunk_of_byte(last) - chunk_of_byte(first) + 1;
}

// The threads a row gets (a group of lanes where the configuration has one, else its block),
// each keeping `vectors` chunks; -1 for chapter 07's launcher, which streams any row.
std::int64_t kept_by_threads(const configured::Config& config) {
  if (config.kind == configured::Kind::wide) return -1;
  const std::int64_t threads = config.lanes > 0 ? config.lanes : config.max_threads;
  return threads * config.vectors;
}

Fit fit_by_reference(const configured::Config& config, const Row& row) {
  if (row.layernorm && !config.layernorm) return Fit::rmsnorm_only;
  const bool starts_on_grid = row.lead == 0;
  const bool ends_on_grid = (row.cols * row.element_bytes) % kChunk == 0;
  if (config.aligned && !(starts_on_grid && ends_on_grid)) return Fit::off_grid;
  const std::int64_t kept = kept_by_threads(config);
  if (kept >= 0 && spanned_by_bytes(row) > kept) return Fit::too_wide;
  return Fit::holds;
}

// What chapter 09's launcher says of the same row, as a Fit (configure()'s "refused:" reasons).
Fit fit_by_launcher(int index, const Row& row) {
  const configured::Problem p{
      .rows = 1,
      .cols = row.cols,
      .element_bytes = row.element_bytes,
      .aligned = row.lead == 0 && row.cols * row.element_bytes % kChunk == 0,
      .chunks = spanned_by_bytes(row),
      .centre = row.layernorm};
  const std::string why = configured::configure(index, p).why;
  if (why.empty()) return Fit::holds;
  if (why.find("RMSNorm ops only") != std::string::npos) return Fit::rmsnorm_only;
  if (why.find("aligned vectors") != std::string::npos) return Fit::off_grid;
  return Fit::too_wide;
}

// Configurations beside the table's: odd lane counts and vectors, a block that is not a power of
// two, an aligned one for RMSNorm only, one for any alignment, so that an answer read off the
// table's names or sizes fails.
std::vector<configured::Config> made_up_configs() {
  using configured::Kind;
  return {{Kind::narrow, 4, 3, configured::kNarrowThreads, 4, true, true, "made_narrow4x3"},
          {Kind::narrow, 2, 7, configured::kNarrowThreads, 4, false, true, "made_narrow2x7_any"},
          {Kind::narrow, 16, 3, configured::kNarrowThreads, 2, true, true, "made_narrow16x3_rms",
           false},
          {Kind::block, 0, 3, 96, 8, true, true, "made_block3_96"},
          {Kind::block, 0, 5, 160, 3, false, false, "made_block5_160_any", false},
          {Kind::wide, 0, 0, 0, 0, false, false, "made_wide"}};
}

// Widths around a capacity of @p kept chunks for rows of @p width elements a chunk, and a few
// everyday ones.
std::vector<std::int64_t> widths_near(std::int64_t kept, std::int64_t width) {
  std::vector<std::int64_t> cols{1, 2, 3, 5, 8, 9, 63, 64, 65, 576, 1001, 4096, 65536};
  if (kept > 0) {
    for (const std::int64_t c : {kept * width - width, kept * width - width + 1, kept * width - 1,
                                 kept * width, kept * width + 1, kept * width + width})
      if (c >= 1) cols.push_back(c);
  }
  return cols;
}

std::string describe(const configured::Config& config, const Row& row) {
  char text[200];
  std::snprintf(text, sizeof text, "%s, %lld columns of %d bytes, lead %d, %s", config.name,
                static_cast<long long>(row.cols), row.element_bytes, row.lead,
                row.layernorm ? "LayerNorm" : "RMSNorm");
  return text;
}

struct Card {
  int total = 0;
  int passed = 0;
  std::vector<std::string> failures;

  void check(bool ok, const std::string& what) {
    ++total;
    if (ok) {
      ++passed;
    } else {
      failures.push_back(what);
    }
  }
  void print() const {
    constexpr std::size_t kShown = 5;
    std::printf("== scorecard: ex13 pruning rule ==\ncorrectness: %d / %d cases passed\n", passed,
                total);
    for (std::size_t i = 0; i < failures.size() && i < kShown; ++i)
      std::printf("  %s\n", failures[i].c_str());
    if (failures.size() > kShown)
      std::printf("  ... and %zu more failed cases\n", failures.size() - kShown);
  }
};

}  // namespace

TEST_CASE("ex13: every configuration against both references, on rows of every kind", "[ex13]") {
  std::vector<configured::Config> configs(std::begin(configured::kConfigs),
                                          std::end(configured::kConfigs));
  const std::size_t table_size = configs.size();
  for (const configured::Config& config : made_up_configs())
    configs.push_back(config);
  Card card;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const configured::Config& config = configs[i];
    const std::int64_t want_kept = kept_by_threads(config);
    const std::int64_t got_kept = ex13::chunks_kept(config);
    card.check(got_kept == (want_kept < 0 ? 0 : want_kept),
               std::string(config.name) + ": chunks_kept " + std::to_string(got_kept) + ", want " +
                   std::to_string(want_kept < 0 ? 0 : want_kept));
    for (const int element_bytes : {2, 4}) {
      const int width = static_cast<int>(kChunk) / element_bytes;
      for (const std::int64_t cols : widths_near(want_kept, width)) {
        for (int lead = 0; lead < width; lead += lead == 0 ? 1 : width - 2) {
          for (const bool layernorm : {false, true}) {
            const Row row{cols, element_bytes, lead, layernorm};
            const std::string what = describe(config, row);
            const std::int64_t spanned = ex13::chunks_spanned(row);
            card.check(spanned == spanned_by_bytes(row), what + ": chunks_spanned " +
                                                             std::to_string(spanned) + ", want " +
                                                             std::to_string(spanned_by_bytes(row)));
            const Fit got = ex13::fit_of(config, row);
            const Fit want = fit_by_reference(config, row);
            card.check(got == want,
                       what + ": fit_of " + ex13::name_of(got) + ", want " + ex13::name_of(want));
            if (i < table_size) {
              const Fit launcher = fit_by_launcher(static_cast<int>(i), row);
              card.check(got == launcher, what + ": fit_of " + ex13::name_of(got) +
                                              ", chapter 09's launcher says " +
                                              ex13::name_of(launcher));
            }
          }
        }
      }
    }
  }
  card.print();
  CHECK(card.total > 10000);
  CHECK(card.passed == card.total);
}
