// SPDX-License-Identifier: Apache-2.0
// The command-line plumbing every normlab program shares: the integer and number parsers,
// the walk over options, the JSON writer, which kernel "x previous chapter" divides by, and
// which kernels a table program runs or skips; and check_argument, which every launcher's
// checks go through.
#include "normlab_catch.hpp"

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/command_line.hpp"
#include "normlab/json.hpp"
#include "normlab/program.hpp"
#include "normlab/registry.hpp"

using normlab::parse_integer;
using normlab::parse_number;

namespace {

// The message of the std::invalid_argument @p parse throws; fails the test when none.
template <typename Parse>
std::string refusal_of(Parse parse) {
  try {
    parse();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  FAIL("nothing was refused");
  return {};
}

}  // namespace

TEST_CASE("parse_integer takes a whole base-10 integer in its range", "[cli]") {
  CHECK(parse_integer("0", "--rows", 0) == 0);
  CHECK(parse_integer("2048", "--rows", 1) == 2048);
  CHECK(parse_integer("-7", "--shift", -10) == -7);
  CHECK(parse_integer("63", "--misalign", 0, 63) == 63);
  CHECK(parse_integer("9223372036854775807", "--seed", 0) == INT64_MAX);
}

TEST_CASE("parse_integer refuses by name what is not an integer in range", "[cli]") {
  for (const char* text : {"", "abc", "12x", "1.5", "1e3", " 12", "12 ", "+12", "0x10", "--5"}) {
    INFO("'" << text << "'");
    const std::string message = refusal_of([&] { parse_integer(text, "--rows", 1); });
    CHECK_THAT(message, Catch::Contains("'--rows'"));
    CHECK_THAT(message, Catch::Contains(std::string("'") + text + "'"));
  }
  // Past 64 bits: strtoll would saturate to INT64_MAX and pass.
  CHECK_THAT(refusal_of([] { parse_integer("99999999999999999999", "--rows", 1); }),
             Catch::Contains("'--rows'") && Catch::Contains("64 bits"));
  CHECK_THAT(refusal_of([] { parse_integer("-99999999999999999999", "--rows", 1); }),
             Catch::Contains("'--rows'"));
  // Out of the range asked for: negative where not allowed, and past a maximum.
  CHECK_THAT(refusal_of([] { parse_integer("-1", "--rows", 0); }),
             Catch::Contains("'--rows' must be >= 0"));
  CHECK_THAT(refusal_of([] { parse_integer("0", "--cols", 1); }),
             Catch::Contains("'--cols' must be >= 1"));
  CHECK_THAT(refusal_of([] { parse_integer("64", "--misalign", 0, 63); }),
             Catch::Contains("'--misalign' must be from 0 to 63"));
}

TEST_CASE("parse_number takes a finite number above its minimum", "[cli]") {
  CHECK(parse_number("1e-5", "--eps", 0.0) == 1e-5);
  CHECK(parse_number("0", "--eps", 0.0) == 0.0);
  CHECK(parse_number("-3.5", "--mean") == -3.5);
  CHECK(parse_number("1e4", "--mean") == 1e4);
}

TEST_CASE("parse_number refuses by name what is not a finite number in range", "[cli]") {
  for (const char* text : {"", "x", "1e-5x", "1,5", " 1", "nan", "inf", "-inf", "1e400", "+1"}) {
    INFO("'" << text << "'");
    CHECK_THAT(refusal_of([&] { parse_number(text, "--mean"); }), Catch::Contains("'--mean'"));
  }
  CHECK_THAT(refusal_of([] { parse_number("-1e-5", "--eps", 0.0); }),
             Catch::Contains("'--eps'") && Catch::Contains(">= 0"));
}

TEST_CASE("split keeps every piece between separators, empty ones too", "[cli]") {
  using Pieces = std::vector<std::string_view>;
  CHECK(normlab::split("a,bc,d", ',') == Pieces{"a", "bc", "d"});
  CHECK(normlab::split("a,,b,", ',') == Pieces{"a", "", "b", ""});
  CHECK(normlab::split("", ',') == Pieces{""});
  CHECK(normlab::split("x\ty", '\t') == Pieces{"x", "y"});
}

TEST_CASE("CommandLine walks options and values and refuses by name", "[cli]") {
  std::vector<std::string> words{"prog", "--rows", "12", "--quick", "--eps", "1e-3", "--bogus"};
  std::vector<char*> argv;
  for (std::string& word : words)
    argv.push_back(word.data());
  normlab::CommandLine line(static_cast<int>(argv.size()), argv.data(), 1);
  REQUIRE(line.next());
  CHECK(line.is("--rows"));
  CHECK(line.integer(1) == 12);
  REQUIRE(line.next());
  CHECK(line.is("--quick"));
  REQUIRE(line.next());
  CHECK(line.number(0.0) == 1e-3);
  REQUIRE(line.next());
  CHECK_THAT(refusal_of([&] { line.refuse_unknown("prog"); }),
             Catch::Contains("'--bogus' is not an option of prog"));
  CHECK_FALSE(line.next());

  // An option whose value is missing: "prog --rows" and nothing after.
  normlab::CommandLine short_line(2, argv.data(), 1);
  REQUIRE(short_line.next());
  CHECK_THAT(refusal_of([&] { short_line.value(); }), Catch::Contains("'--rows' needs a value"));

  CHECK(normlab::asks_for_help(static_cast<int>(argv.size()), argv.data(), 1) == false);
  std::vector<std::string> help{"prog", "--rows", "3", "--help"};
  std::vector<char*> help_argv{help[0].data(), help[1].data(), help[2].data(), help[3].data()};
  CHECK(normlab::asks_for_help(4, help_argv.data(), 1));
}

TEST_CASE("json_quoted escapes quotes, backslashes and control characters", "[json]") {
  CHECK(normlab::json_quoted("plain") == "\"plain\"");
  CHECK(normlab::json_quoted("say \"hi\"") == "\"say \\\"hi\\\"\"");
  CHECK(normlab::json_quoted("C:\\dir") == "\"C:\\\\dir\"");
  CHECK(normlab::json_quoted("a\nb\tc\rd") == "\"a\\nb\\tc\\rd\"");
  CHECK(normlab::json_quoted(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(normlab::json_quoted(std::string("nul\0!", 5)) == "\"nul\\u0000!\"");
  CHECK(normlab::json_quoted("caf\xc3\xa9") == "\"caf\xc3\xa9\"");  // UTF-8 passes through
}

TEST_CASE("JsonWriter places commas, keys and values", "[json]") {
  std::ostringstream out;
  normlab::JsonWriter json(out, 0);
  json.begin_object()
      .member("name", "a \"b\"")
      .member("count", 3)
      .member("big", std::int64_t{1} << 40)
      .member("ratio", 0.1)
      .member("nan", std::numeric_limits<double>::quiet_NaN())
      .member("ok", true)
      .key("list")
      .begin_array()
      .value(1)
      .begin_object()
      .end_object()
      .begin_array()
      .end_array()
      .null()
      .end_array()
      .end_object();
  CHECK(out.str() ==
        "{\"name\": \"a \\\"b\\\"\", \"count\": 3, \"big\": 1099511627776, \"ratio\": 0.1, "
        "\"nan\": null, \"ok\": true, \"list\": [1, {}, [], null]}");

  std::ostringstream pretty;
  normlab::JsonWriter indented(pretty, 2);
  indented.begin_object().key("a").begin_array().value(1).value(2).end_array().end_object();
  CHECK(pretty.str() == "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n");

  std::ostringstream bad;
  normlab::JsonWriter misuse(bad);
  misuse.begin_object();
  CHECK_THROWS_AS(misuse.value(1), std::logic_error);  // a member needs a key
  CHECK_THROWS_AS(misuse.end_array(), std::logic_error);
}

namespace {

// A fake kernel and its row: chapter, op, verified or not, median time.
normlab::KernelEntry kernel(const char* name, int chapter, normlab::Op op, bool baseline = false) {
  normlab::KernelEntry entry;
  entry.name = name;
  entry.chapter = chapter;
  entry.op = op;
  entry.baseline = baseline;
  return entry;
}

normlab::ResultRow row(const normlab::KernelEntry& entry, bool passed, double median_ms) {
  normlab::ResultRow r;
  r.kernel = &entry;
  r.passed = passed;
  r.measurement.timing.median_ms = median_ms;
  return r;
}

}  // namespace

TEST_CASE("x previous chapter divides by the fastest passing earlier kernel of the op", "[tour]") {
  using normlab::Op;
  const auto eager = kernel("ch00_eager", 0, Op::rmsnorm, true);
  const auto slow1 = kernel("ch01_slow", 1, Op::rmsnorm);
  const auto fused = kernel("ch04_fused", 4, Op::rmsnorm);
  const auto two_reads = kernel("ch04_two_reads", 4, Op::rmsnorm);    // slower, listed last
  const auto broken = kernel("ch05_broken", 5, Op::rmsnorm);          // fastest, but FAILs
  const auto layernorm = kernel("ch05_layernorm", 5, Op::layernorm);  // other op, fastest
  const auto current = kernel("ch07", 7, Op::rmsnorm);
  const auto same_chapter = kernel("ch07_twin", 7, Op::rmsnorm);
  std::vector<normlab::ResultRow> rows{row(eager, true, 100.0), row(slow1, true, 400.0),
                                       row(fused, true, 10.0),  row(two_reads, true, 20.0),
                                       row(broken, false, 1.0), row(layernorm, true, 0.5),
                                       row(current, true, 8.0), row(same_chapter, true, 5.0)};
  normlab::fill_speedups(rows);

  const auto& ch07 = rows[6];
  REQUIRE(ch07.speedup_vs_previous.has_value());
  CHECK(*ch07.speedup_vs_previous == Approx(10.0 / 8.0));  // ch04_fused, not ch04_two_reads
  REQUIRE(ch07.speedup_vs_baseline.has_value());
  CHECK(*ch07.speedup_vs_baseline == Approx(100.0 / 8.0));
  // A kernel of the same chapter is not a previous chapter.
  CHECK(*rows[7].speedup_vs_previous == Approx(10.0 / 5.0));
  // ch04's kernels compare with the fastest of chapters 00 and 01: the eager baseline.
  CHECK(*rows[3].speedup_vs_previous == Approx(100.0 / 20.0));
  // Nothing earlier: no speed-up; a failed row gets none; another op's rows are not used.
  CHECK_FALSE(rows[0].speedup_vs_previous.has_value());
  CHECK_FALSE(rows[0].speedup_vs_baseline.has_value());
  CHECK_FALSE(rows[4].speedup_vs_previous.has_value());
  CHECK_FALSE(rows[5].speedup_vs_previous.has_value());
  CHECK_FALSE(rows[5].speedup_vs_baseline.has_value());
}

TEST_CASE("select_kernels keeps the op asked for and says why a kernel refuses", "[tour]") {
  const std::vector<normlab::KernelEntry>& registry = normlab::kernel_registry();
  normlab::ProgramOptions options;
  options.op = normlab::Op::layernorm;
  const auto layernorm = normlab::select_kernels(registry, options);
  REQUIRE_FALSE(layernorm.runnable.empty());
  for (const normlab::KernelEntry* k : layernorm.runnable)
    CHECK(k->op == normlab::Op::layernorm);
  const auto every_op = normlab::select_kernels(registry, normlab::ProgramOptions{});
  CHECK(every_op.runnable.size() == registry.size());  // fp32: every kernel takes it

  // bf16: the fp32-only kernels are not dropped silently but refused with a reason.
  options = {};
  options.dtype = normlab::DType::bf16;
  options.filter = "ch04_";
  const auto bf16 = normlab::select_kernels(registry, options);
  CHECK(bf16.runnable.empty());
  REQUIRE(bf16.refused.size() == 2);
  for (const normlab::Refusal& refusal : bf16.refused) {
    INFO(refusal.kernel->name << ": " << refusal.reason);
    CHECK_THAT(refusal.kernel->name, Catch::StartsWith("ch04_"));
    CHECK_FALSE(refusal.reason.empty());
  }
}

TEST_CASE("check_argument writes its requirement only when the check fails", "[cli]") {
  int written = 0;
  auto requirement = [&] {
    ++written;
    return std::string("must be even (got 3)");
  };
  normlab::check_argument(true, "f", "n", requirement);
  CHECK(written == 0);
  CHECK(refusal_of([&] { normlab::check_argument(false, "f", "n", requirement); }) ==
        "f: argument 'n' must be even (got 3)");
  CHECK(written == 1);
  // The launchers' checks name the argument as before, a stride by its tensor's name.
  alignas(16) const float data[16] = {};
  CHECK(refusal_of([&] { normlab::validate_tensor("f", "x", data, 2, 8, 4); }) ==
        "f: argument 'x_stride' must be >= cols (got 4 < 8)");
  CHECK(refusal_of([&] { normlab::validate_alignment("f", "y", data, 3, 4, 16); }) ==
        "f: argument 'y_stride' must keep every row 16-byte aligned (got 3 elements)");
  CHECK(refusal_of([&] { normlab::validate_shape("f", 4, 0); }) ==
        "f: argument 'cols' must be >= 1 (got 0)");
  normlab::validate_tensor("f", "x", data, 2, 8, 8);
  normlab::validate_alignment("f", "y", data, 4, 4, 16);
}
