// SPDX-License-Identifier: Apache-2.0
// The tuned chooser without a GPU: a table read and written back, malformed lines refused by line
// number, the nearest grid point that has a kernel for the call, a tuned entry chosen over the
// rules, a call its kernel refuses passed to the next, no table or no near point falling back to
// the rules, and the tables found by device name (the user's directory first).
#include "normlab_catch.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "candidates.hpp"
#include "dispatcher.hpp"
#include "normlab/registry.hpp"
#include "normlab/runner.hpp"
#include "tuned_table.hpp"

namespace {

using normlab::Case;
using normlab::DType;
using normlab::Op;
namespace dispatch = normlab::dispatch;

constexpr int kHopper = 90;

// Two grid points of RMSNorm bf16 at 4096 columns, one at 576 and one at 3072: the fastest at
// 4096 many rows needs whole 16-byte rows, so a misaligned call goes to the next.
const char* const kTable =
    "# device\tNVIDIA Test GPU\n"
    "# copy_roof_gbps\t3000.0\n"
    "# date\t2026-12-02T00:00:00Z\n"
    "rmsnorm\tbf16\t8192\t4096\tblock/block4_128x6=0.05 general/default=0.06 "
    "split/default=0.09\n"
    "rmsnorm\tbf16\t1\t4096\tblock/block2=0.004 general/default=0.005\n"
    "rmsnorm\tbf16\t8192\t576\tlanes/narrow32x3=0.01 general/default=0.02\n"
    "rmsnorm\tbf16\t1\t3072\tgeneral/default=0.004\n";

dispatch::TunedTable table() {
  return dispatch::parse_tuned_table(kTable, "test-gpu.3000GBps.tsv");
}

normlab::Plan planned(const Case& c, const dispatch::TunedTable* t) {
  return dispatch::plan(c, kHopper, t);
}

}  // namespace

TEST_CASE("a tuned table reads back what it writes", "[tuned]") {
  const dispatch::TunedTable t = table();
  CHECK(t.device == "NVIDIA Test GPU");
  CHECK(t.copy_roof_gbps == 3000.0);
  REQUIRE(t.entries.size() == 4);
  CHECK(t.entries[0].ranking.size() == 3);
  CHECK(t.entries[0].ranking[1].candidate == "general/default");
  CHECK(t.entries[0].ranking[1].ms == 0.06);
  const dispatch::TunedTable again = dispatch::parse_tuned_table(format_tuned_table(t), t.name);
  CHECK(dispatch::format_tuned_table(again) == dispatch::format_tuned_table(t));
}

TEST_CASE("a malformed tuned table is refused by its line", "[tuned]") {
  const std::string head = "# device\tNVIDIA Test GPU\n";
  const auto refused = [&](const std::string& line, const std::string& why) {
    INFO(line);
    CHECK_THROWS_WITH(dispatch::parse_tuned_table(head + line, "bad.tsv"),
                      Catch::Contains("bad.tsv, line 2") && Catch::Contains(why));
  };
  refused("rmsnorm\tbf16\t8\t64\n", "5 tab-separated fields");
  refused("norm\tbf16\t8\t64\tk=1\n", "norm");
  refused("copy\tbf16\t8\t64\tk=1\n", "not a norm op");
  refused("rmsnorm\tbf17\t8\t64\tk=1\n", "bf17");
  refused("rmsnorm\tbf16\t0\t64\tk=1\n", "rows");
  refused("rmsnorm\tbf16\t8\tx\tk=1\n", "cols");
  refused("rmsnorm\tbf16\t8\t64\tk\n", "family/config=ms");
  refused("rmsnorm\tbf16\t8\t64\tk=-1\n", "positive time");
  refused("rmsnorm\tbf16\t8\t64\ta=2 b=1\n", "fastest first");
  CHECK_THROWS_WITH(dispatch::parse_tuned_table("rmsnorm\tbf16\t8\t64\tk=1\n", "headless.tsv"),
                    Catch::Contains("no '# device' header line"));
}

TEST_CASE("the nearest grid point with a kernel that takes the call is picked", "[tuned]") {
  const dispatch::TunedTable t = table();
  const auto all = [](const std::string&) { return true; };
  const auto pick = [&](std::int64_t rows, std::int64_t cols, auto takes) {
    return dispatch::nearest_pick(t, Op::rmsnorm, DType::bf16, rows, cols, takes);
  };
  // Columns weigh four times rows: 4000 columns at 2 rows is nearer 1 x 4096 than 8192 x 4096.
  REQUIRE(pick(2, 4000, all));
  CHECK(pick(2, 4000, all)->entry->rows == 1);
  CHECK(pick(5000, 4000, all)->entry->rows == 8192);
  CHECK(pick(5000, 700, all)->entry->cols == 576);
  // 128 x 3072: 1 x 3072 is 7 octaves of rows away (1.75), 8192 x 4096 0.42 octaves of columns
  // and 6 of rows (1.92); rows counted as much as columns would pick the latter.
  CHECK(pick(128, 3072, all)->entry->cols == 3072);
  // A kernel that refuses is passed over for the next of the same point...
  const auto no_block = [](const std::string& k) { return k.find("block") == std::string::npos; };
  const auto next = pick(5000, 4000, no_block);
  REQUIRE(next);
  CHECK(next->entry->rows == 8192);
  CHECK(next->entry->ranking[next->index].candidate == "general/default");
  // ...and a point where none takes it for the next point.
  const auto only_split = [](const std::string& k) { return k == "split/default"; };
  REQUIRE(pick(1, 4096, only_split));
  CHECK(pick(1, 4096, only_split)->entry->rows == 8192);
  // Too far in columns (more than an octave), another dtype or op, or none taking it: nothing.
  CHECK_FALSE(pick(8192, 8193 * 2, all));
  CHECK_FALSE(dispatch::nearest_pick(t, Op::rmsnorm, DType::f16, 8192, 4096, all));
  CHECK_FALSE(dispatch::nearest_pick(t, Op::layernorm, DType::bf16, 8192, 4096, all));
  CHECK_FALSE(pick(8192, 4096, [](const std::string&) { return false; }));
}

TEST_CASE("the dispatcher takes the tuned pick, and the rules without one", "[tuned]") {
  const dispatch::TunedTable t = table();
  Case c = normlab::default_case(Op::rmsnorm, 6000, 4096, DType::bf16);
  const normlab::Plan tuned = planned(c, &t);
  CHECK(tuned.kernel->name == "ch09_rmsnorm@block4_128x6");
  CHECK_THAT(tuned.why, Catch::Contains("tuned table test-gpu.3000GBps.tsv") &&
                            Catch::Contains("8192 x 4096") &&
                            Catch::Contains("runner-up general/default"));
  CHECK_THAT(tuned.launch, Catch::Contains("block4_128x6: 128 threads"));
  // Without a table: the rules, which name chapter 09's dispatcher entry here.
  CHECK(planned(c, nullptr).kernel->name == "ch09_rmsnorm");
  // A row one element off the 16-byte grid: block4_128x6 (aligned rows only) refuses it, and
  // the next of the point that takes it runs.
  c.misalign = 1;
  const normlab::Plan misaligned = planned(c, &t);
  CHECK(misaligned.kernel->name == "ch07_rmsnorm");
  CHECK_THAT(misaligned.why, Catch::Contains("1 faster one refuses it"));
  // A row wider than block4_128x6 holds (512 chunks) at the same point (4104 columns: 513).
  c = normlab::default_case(Op::rmsnorm, 6000, 4104, DType::bf16);
  CHECK(planned(c, &t).kernel->name == "ch07_rmsnorm");
  // No point near: the rules, saying so.
  c = normlab::default_case(Op::rmsnorm, 6000, 30000, DType::bf16);
  const normlab::Plan far = planned(c, &t);
  CHECK(far.kernel->name == planned(c, nullptr).kernel->name);
  CHECK_THAT(far.why, Catch::StartsWith("no grid point of tuned table"));
  // An op the table has no grid point of: the rules, saying so.
  // (decide(), not plan(): a backward plan's scratch is sized by the GPU's SM count.)
  c = normlab::default_case(Op::rmsnorm_backward, 6000, 4096, DType::bf16);
  const dispatch::Facts facts = dispatch::facts_of(c, kHopper);
  const normlab::Plan untuned = dispatch::decide(facts, normlab::kernel_registry(), &t);
  CHECK(untuned.kernel == dispatch::decide(facts, normlab::kernel_registry()).kernel);
  CHECK_THAT(untuned.why,
             Catch::StartsWith("tuned table test-gpu.3000GBps.tsv has no grid point of "
                               "rmsnorm_backward bf16; the rules: backward"));
}

TEST_CASE("a table naming kernels this build lacks or that refuse is never planned", "[tuned]") {
  const dispatch::TunedTable t = dispatch::parse_tuned_table(
      "# device\tNVIDIA Test GPU\n"
      "layernorm\tbf16\t64\t576\tno/such=0.001 lanes/narrow16x5=0.002 block/block4_any=0.003\n",
      "odd.tsv");
  const Case c = normlab::default_case(Op::layernorm, 64, 576, DType::bf16);
  // An unknown key, and a configuration that LayerNorm lacks (narrow16x5 is compiled for
  // RMSNorm ops only), are passed over.
  const normlab::Plan plan = planned(c, &t);
  CHECK(plan.kernel->name == "ch09_layernorm@block4_any");
  CHECK(plan.kernel->op == Op::layernorm);
}

TEST_CASE("every candidate is a kernel that the tables can name", "[tuned]") {
  std::set<std::string> names;
  int chapter09 = 0;
  for (const dispatch::Candidate& candidate : dispatch::candidates()) {
    INFO(candidate.kernel->name);
    CHECK(candidate.kernel->op != Op::copy);
    // No kernel whose gradients change bits from run to run.
    CHECK(candidate.kernel->name.find("_atomic") == std::string::npos);
    CHECK(names.insert(candidate.kernel->name).second);
    CHECK(dispatch::candidate_named(candidate.kernel->name) == &candidate);
    CHECK(dispatch::candidate_keyed(candidate.kernel->op, candidate.key) == &candidate);
    CHECK(candidate.key == std::string(candidate.family) + "/" + candidate.config);
    CHECK(candidate.kernel->name.find_first_of(" \t=") == std::string::npos);
    chapter09 += candidate.config_index >= 0;
  }
  CHECK(chapter09 > 0);
  CHECK(dispatch::candidate_named("ch07_rmsnorm") != nullptr);
  CHECK(dispatch::candidate_keyed(normlab::Op::layernorm, "lanes/narrow8x4")->kernel->name ==
        "ch09_layernorm@narrow8x4");
  CHECK(dispatch::candidate_keyed(normlab::Op::layernorm, "lanes/narrow16x5") == nullptr);
  CHECK(dispatch::candidate_named("ch09_rmsnorm") == nullptr);  // a chooser, not a candidate
}

TEST_CASE("chapter 10's cluster row configurations: keyed, chosen, refused by name", "[tuned]") {
  CHECK(dispatch::candidate_keyed(Op::layernorm, "cluster_row/256x2")->kernel->name ==
        "ch10_layernorm_cluster_row@256x2");
  CHECK(dispatch::candidate_keyed(Op::layernorm, "cluster/default")->kernel->name ==
        "ch10_layernorm_cluster");
  const dispatch::TunedTable t = dispatch::parse_tuned_table(
      "# device\tNVIDIA Test GPU\n"
      "rmsnorm\tbf16\t1\t32768\tcluster_row/256x1=0.006 cluster/default=0.007 "
      "general/default=0.03\n"
      "rmsnorm\tbf16\t1\t65536\tcluster_row/128x1=0.006 cluster_row/256x2=0.007 "
      "cluster/default=0.008\n",
      "rows.tsv");
  Case c = normlab::default_case(Op::rmsnorm, 1, 32768, DType::bf16);
  CHECK(planned(c, &t).kernel->name == "ch10_rmsnorm_cluster_row@256x1");
  // A row one element short of whole 16-byte chunks, its stride 32768 (one element of pad): the
  // family refuses it, the cluster kernel runs.
  c = normlab::default_case(Op::rmsnorm, 1, 32767, DType::bf16);
  c.pad = 1;
  CHECK(planned(c, &t).kernel->name == "ch10_rmsnorm_cluster");
  CHECK_THAT(dispatch::candidate_keyed(Op::rmsnorm, "cluster_row/256x1")->kernel->refusal(c),
             Catch::Contains("whole number of 16-byte chunks"));
  // Wider than 16 blocks of 128 threads of one chunk hold (16384 bf16 columns): the next
  // configuration.
  c = normlab::default_case(Op::rmsnorm, 1, 65536, DType::bf16);
  CHECK(planned(c, &t).kernel->name == "ch10_rmsnorm_cluster_row@256x2");
  // No clusters before sm_90: neither cluster kernel.
  CHECK(dispatch::plan(c, 80, &t).kernel->name.find("_cluster") == std::string::npos);
}

TEST_CASE("tables are found by the GPU's name, the user's directory first", "[tuned]") {
  CHECK(dispatch::device_slug("NVIDIA H200") == "nvidia-h200");
  CHECK(dispatch::device_slug(" NVIDIA  H100 80GB HBM3 ") == "nvidia-h100-80gb-hbm3");
  CHECK(dispatch::tuned_table_file_name("NVIDIA H200", 4183.6) == "nvidia-h200.4200GBps.tsv");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("normlab-tuned-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "nvidia-test-gpu.3000GBps.tsv") << kTable;
  std::ofstream(dir / "nvidia-other.3000GBps.tsv") << "# device\tNVIDIA Other\n";
  REQUIRE(::setenv("NORMLAB_TUNED_DIR", dir.c_str(), 1) == 0);
  CHECK(dispatch::user_tuned_directory() == dir.string());
  const dispatch::TunedTable* found = dispatch::tuned_table_for("NVIDIA Test GPU");
  REQUIRE(found != nullptr);
  CHECK(found->name == "nvidia-test-gpu.3000GBps.tsv");
  CHECK(found->entries.size() == 4);
  CHECK(dispatch::tuned_table_for("NVIDIA Test GPU") == found);  // read once, kept
  CHECK(dispatch::tuned_table_for("NVIDIA Unknown GPU") == nullptr);
  // Compiled in: every table of kernels/tuned, each for the GPU its name says.
  for (const dispatch::EmbeddedTable& embedded : dispatch::embedded_tuned_tables()) {
    INFO(embedded.name);
    const dispatch::TunedTable parsed = dispatch::parse_tuned_table(embedded.text, embedded.name);
    CHECK(std::string(embedded.name).starts_with(dispatch::device_slug(parsed.device) + "."));
    CHECK_FALSE(parsed.entries.empty());
    const dispatch::TunedTable* kept = dispatch::tuned_table_for(parsed.device);
    REQUIRE(kept != nullptr);
    CHECK(kept->name == embedded.name);
    for (const dispatch::TunedEntry& entry : parsed.entries) {
      for (const dispatch::TunedTime& timed : entry.ranking) {
        INFO(timed.candidate);
        CHECK(dispatch::candidate_keyed(entry.op, timed.candidate) != nullptr);
      }
    }
  }
  ::unsetenv("NORMLAB_TUNED_DIR");
  std::filesystem::remove_all(dir);
}

TEST_CASE("the staged family: keyed, chosen, refused by name", "[tuned]") {
  const dispatch::Candidate* staged8 = dispatch::candidate_keyed(Op::layernorm, "staged/staged8");
  REQUIRE(staged8 != nullptr);
  CHECK(staged8->kernel->name == "ch09_layernorm@staged8");
  const dispatch::TunedTable t = dispatch::parse_tuned_table(
      "# device\tNVIDIA Test GPU\n"
      "layernorm\tfp32\t256\t10240\tstaged/staged8=0.0129 staged/staged4=0.0147 "
      "general/default=0.0194\n",
      "staged.tsv");
  Case c = normlab::default_case(Op::layernorm, 256, 10240, DType::f32);
  CHECK(planned(c, &t).kernel->name == "ch09_layernorm@staged8");
  // Its entries take what slim's take: a row on the 16-byte grid, a weight and a bias in x's
  // dtype. Off the grid, or without a bias, the next of the point that takes the call runs.
  c.misalign = 1;
  CHECK(planned(c, &t).kernel->name == "ch07_layernorm");
  CHECK_THAT(staged8->kernel->refusal(c), Catch::Contains("aligned to 16 bytes"));
  c = normlab::default_case(Op::layernorm, 256, 10240, DType::f32);
  c.shape.bias = false;
  CHECK(planned(c, &t).kernel->name == "ch07_layernorm");
}

TEST_CASE("the slim family: a row a block or group and at most 2^31 - 1 rows", "[tuned]") {
  const dispatch::Candidate* slim = dispatch::candidate_keyed(Op::rmsnorm, "slim/slim1_held");
  REQUIRE(slim != nullptr);
  // Its kernels count rows in 32 bits, and the grid holds them all (no loop over rows).
  Case c = normlab::default_case(Op::rmsnorm, 2147483647, 8, DType::bf16);
  CHECK(slim->kernel->refusal(c).empty());
  c.shape.rows = 2147483648;
  CHECK_THAT(slim->kernel->refusal(c), Catch::Contains("more than 2147483647 rows"));
}

TEST_CASE("backward: chapter 08's kernel and chapter 10's cluster configurations, tuned",
          "[tuned]") {
  CHECK(dispatch::candidate_keyed(Op::layernorm_backward, "persistent/default")->kernel->name ==
        "ch08_layernorm_backward");
  CHECK(dispatch::candidate_keyed(Op::rmsnorm_backward, "cluster/512x4")->kernel->name ==
        "ch10_rmsnorm_backward_cluster@512x4");
  CHECK(dispatch::candidate_named("ch08_rmsnorm_backward_atomic") == nullptr);
  CHECK(dispatch::candidate_named("ch10_rmsnorm_backward") == nullptr);  // the rules' own
  const dispatch::TunedTable t = dispatch::parse_tuned_table(
      "# device\tNVIDIA Test GPU\n"
      "layernorm_backward\tbf16\t4096\t16384\tcluster/512x4=0.10 cluster/256x4=0.12 "
      "cluster/256x2=0.14\n"
      "layernorm_backward\tbf16\t4096\t4096\tcluster/256x4=0.03 persistent/default=0.04\n",
      "backward.tsv");
  const auto decided = [&](const Case& c, bool parameters_aligned = true) {
    dispatch::Facts facts = dispatch::facts_of(c, kHopper);
    facts.parameters_aligned = parameters_aligned;
    return dispatch::decide(facts, normlab::kernel_registry(), &t);
  };
  Case c = normlab::default_case(Op::layernorm_backward, 3000, 16000, DType::bf16);
  const normlab::Plan tuned = decided(c);
  CHECK(tuned.kernel->name == "ch10_layernorm_backward_cluster@512x4");
  CHECK_THAT(tuned.why, Catch::Contains("tuned table backward.tsv") &&
                            Catch::Contains("4096 x 16384") &&
                            Catch::Contains("runner-up cluster/256x4"));
  // Where the table ranks a cluster first, it runs rows chapter 08 would have taken.
  c = normlab::default_case(Op::layernorm_backward, 4096, 4096, DType::bf16);
  CHECK(decided(c).kernel->name == "ch10_layernorm_backward_cluster@256x4");
  CHECK(decided(c, false).kernel->name == "ch08_layernorm_backward");
  // 4 vectors a thread are compiled for the 16-byte grid: a row off it (16001 columns), or a
  // weight off it, goes to 2.
  c = normlab::default_case(Op::layernorm_backward, 3000, 16001, DType::bf16);
  CHECK(decided(c).kernel->name == "ch10_layernorm_backward_cluster@256x2");
  CHECK_THAT(dispatch::candidate_keyed(Op::layernorm_backward, "cluster/512x4")->kernel->refusal(c),
             Catch::Contains("whole number of 16-byte chunks"));
  c = normlab::default_case(Op::layernorm_backward, 3000, 16000, DType::bf16);
  const normlab::Plan off_grid_weight = decided(c, false);
  CHECK(off_grid_weight.kernel->name == "ch10_layernorm_backward_cluster@256x2");
  CHECK_THAT(off_grid_weight.why, Catch::Contains("2 faster ones refuse it"));
  // Each configuration holds 16 of its blocks: 256x2 8192 chunks (65536 bf16 columns).
  c = normlab::default_case(Op::layernorm_backward, 8, 65536, DType::bf16);
  const normlab::KernelEntry& narrow =
      *dispatch::candidate_keyed(Op::layernorm_backward, "cluster/256x2")->kernel;
  CHECK(narrow.refusal(c).empty());
  c.shape.cols = 65544;
  CHECK(narrow.refusal(c) == "rows wider than 131072 bytes");
  c.shape.cols = 131072;
  CHECK(dispatch::candidate_keyed(Op::layernorm_backward, "cluster/256x4")
            ->kernel->refusal(c)
            .empty());
  CHECK(dispatch::candidate_keyed(Op::layernorm_backward, "cluster/512x4")
            ->kernel->refusal(normlab::default_case(Op::layernorm_backward, 8, 262144, DType::bf16))
            .empty());
}

TEST_CASE("a kernel compiled for the 16-byte grid is not planned on parameters off it", "[tuned]") {
  // The cluster row family reads the weight in whole chunks: a weight off the grid, with the
  // activations on it, goes to the next of the point's ranking.
  const dispatch::TunedTable t = dispatch::parse_tuned_table(
      "# device\tNVIDIA Test GPU\n"
      "rmsnorm\tbf16\t1\t32768\tcluster_row/256x1=0.006 general/default=0.03\n",
      "rows.tsv");
  dispatch::Facts facts =
      dispatch::facts_of(normlab::default_case(Op::rmsnorm, 1, 32768, DType::bf16), kHopper);
  CHECK(dispatch::decide(facts, normlab::kernel_registry(), &t).kernel->name ==
        "ch10_rmsnorm_cluster_row@256x1");
  facts.parameters_aligned = false;
  const dispatch::Candidate& rows = *dispatch::candidate_keyed(Op::rmsnorm, "cluster_row/256x1");
  CHECK(dispatch::refusal_of(rows, facts) == "needs the weight and bias aligned to 16 bytes");
  CHECK(dispatch::decide(facts, normlab::kernel_registry(), &t).kernel->name == "ch07_rmsnorm");
}

TEST_CASE("chapter 10's cluster family's configurations: keyed, chosen, refused by name",
          "[tuned]") {
  CHECK(dispatch::candidate_keyed(Op::add_rmsnorm, "cluster/128x4")->kernel->name ==
        "ch10_add_rmsnorm_cluster@128x4");
  const dispatch::TunedTable t = dispatch::parse_tuned_table(
      "# device\tNVIDIA Test GPU\n"
      "rmsnorm\tbf16\t256\t65536\tcluster/512x4=0.04 cluster/128x4=0.045 cluster/default=0.05\n",
      "clusters.tsv");
  Case c = normlab::default_case(Op::rmsnorm, 256, 65536, DType::bf16);
  CHECK(planned(c, &t).kernel->name == "ch10_rmsnorm_cluster@512x4");
  // Rows of part of a chunk, their stride on the grid: 512 threads a block refuse them, 128 take.
  c = normlab::default_case(Op::rmsnorm, 256, 65533, DType::bf16);
  c.pad = 3;
  CHECK_THAT(dispatch::candidate_keyed(Op::rmsnorm, "cluster/512x4")->kernel->refusal(c),
             Catch::Contains("whole number of 16-byte chunks"));
  CHECK(planned(c, &t).kernel->name == "ch10_rmsnorm_cluster@128x4");
  // Wider than 16 blocks of 128 threads hold (8192 chunks): the next that takes it.
  c = normlab::default_case(Op::rmsnorm, 256, 65544, DType::bf16);
  CHECK(dispatch::candidate_keyed(Op::rmsnorm, "cluster/128x4")->kernel->refusal(c) ==
        "rows wider than 131072 bytes");
  c.pad = 0;
  CHECK(planned(c, &t).kernel->name == "ch10_rmsnorm_cluster@512x4");
}
