// SPDX-License-Identifier: Apache-2.0
// normlab tune: on the GPU it runs on, for every point of a grid (op, dtype, cols, rows), every
// candidate of the tuned chooser (candidates.hpp) that takes the call is checked against
// float64 and timed as `normlab tour` times (warm-up, L2 flushed, median); the ranking goes into
// the GPU's table, rewritten after each point so that a stopped run resumes where it stopped.
#include "tune.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "candidates.hpp"
#include "dispatcher.hpp"
#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/roofline.hpp"
#include "normlab/runner.hpp"
#include "tuned_table.hpp"
#include "usage_error.hpp"

namespace normlab::tool {

namespace {

// The grid's widths: bf16 rows every one, fp16 and fp32 rows every third, which still spans the
// whole range (the chooser takes the nearest point).
constexpr std::int64_t kWidths[] = {256,   512,   576,   768,   896,   1024,  1536, 2048, 2304,
                                    2560,  2880,  3072,  3584,  4096,  5120,  6144, 7168, 8192,
                                    10240, 12288, 14336, 16384, 24576, 32768, 65536};
// "big" rows: the fewest that move this many bytes by the op's bytes model, a size at which the
// time is bandwidth and not launch latency.
constexpr double kBigBytes = 128.0 * 1024 * 1024;
// Each candidate is checked on at most this many elements' rows (at least kFewestCheckRows):
// the same kernel and configuration as the timed call, on fewer rows.
constexpr std::int64_t kCheckElements = std::int64_t{1} << 20;
constexpr std::int64_t kFewestCheckRows = 64;

const std::string kTuneUsage =
    "usage: normlab tune [options]\n"
    "checks every candidate kernel against float64 and times it on a grid of shapes on this\n"
    "GPU, then writes the ranking as this GPU's tuned table, which normlab::plan reads\n"
    "  --out DIR         where the table goes (default: $NORMLAB_TUNED_DIR, else\n"
    "                    $XDG_CACHE_HOME/normlab/tuned, else ~/.cache/normlab/tuned); a table\n"
    "                    for this GPU already there is resumed: its grid points are kept\n"
    "  --fresh           start a new table instead of resuming\n"
    "  --ops LIST        comma-separated ops (default rmsnorm,layernorm,add_rmsnorm,\n"
    "                    add_layernorm,rmsnorm_backward,layernorm_backward)\n"
    "  --dtypes LIST     comma-separated dtypes (default bf16,fp16,fp32)\n"
    "  --widths LIST     comma-separated columns (default: 25 widths from 256 to 65536 for bf16,\n"
    "                    every third of them for fp16 and fp32)\n"
    "  --rows LIST       comma-separated row counts, 'big' for the fewest moving 128 MiB\n"
    "                    (default 1,32,256,big)\n"
    "  --kernel TEXT     only candidates whose key (family/config) or kernel name contains TEXT\n"
    "  --update          with --kernel: at the grid points already in the table, time those\n"
    "                    candidates alone and rank them in among the times kept there (a new\n"
    "                    family or configuration), noted in the table's header; other points\n"
    "                    are left for a run without it\n"
    "  --list            print the candidates of each op and the grid, and exit (no GPU needed)\n"
    "  --repetitions N   timed repetitions a candidate (default 30; median kept)\n"
    "  --budget-s S      stop after the grid point that passes S seconds (resume later)\n"
    "  --help            print this and exit\n"
    "exit codes: 0 tuned, 1 a candidate failed its check (left out of the table), 2 bad usage,\n"
    "            69 no CUDA GPU\n";

struct Options {
  std::string out;
  bool fresh = false;
  std::vector<Op> ops{Op::rmsnorm,       Op::layernorm,        Op::add_rmsnorm,
                      Op::add_layernorm, Op::rmsnorm_backward, Op::layernorm_backward};
  std::vector<DType> dtypes{DType::bf16, DType::f16, DType::f32};
  std::vector<std::int64_t> widths;               // empty: kWidths by dtype
  std::vector<std::int64_t> rows{1, 32, 256, 0};  // 0: big
  std::string kernel_filter;
  bool update = false;  // re-time the --kernel candidates at points already in the table
  bool list = false;
  int repetitions = 30;
  double budget_s = 0.0;  // 0: none
};

// The comma-separated items of @p list, an empty one refused naming @p option.
std::vector<std::string> items(const std::string& list, std::string_view option) {
  std::vector<std::string> found;
  for (const std::string_view item : split(list, ',')) {
    if (item.empty()) refuse_option(option, "has an empty item in '" + list + "'");
    found.emplace_back(item);
  }
  return found;
}

Options parse(int argc, char** argv, int first) {
  Options o;
  o.out = dispatch::user_tuned_directory();
  CommandLine line(argc, argv, first);
  while (line.next()) {
    if (line.is("--out")) {
      o.out = line.value();
    } else if (line.is("--fresh")) {
      o.fresh = true;
    } else if (line.is("--ops")) {
      o.ops.clear();
      for (const std::string& item : items(line.value(), "--ops")) {
        const Op op = parse_op(item, "--ops");
        if (op == Op::copy) refuse_option("--ops", "takes norms and their backward; not " + item);
        o.ops.push_back(op);
      }
    } else if (line.is("--dtypes")) {
      o.dtypes.clear();
      for (const std::string& item : items(line.value(), "--dtypes"))
        o.dtypes.push_back(parse_dtype(item, "--dtypes"));
    } else if (line.is("--widths")) {
      o.widths.clear();
      for (const std::string& item : items(line.value(), "--widths"))
        o.widths.push_back(parse_integer(item, "--widths", 1));
    } else if (line.is("--rows")) {
      o.rows.clear();
      for (const std::string& item : items(line.value(), "--rows"))
        o.rows.push_back(item == "big" ? 0 : parse_integer(item, "--rows", 1));
    } else if (line.is("--kernel")) {
      o.kernel_filter = line.value();
    } else if (line.is("--update")) {
      o.update = true;
    } else if (line.is("--list")) {
      o.list = true;
    } else if (line.is("--repetitions")) {
      o.repetitions = static_cast<int>(line.integer(1, 100000));
    } else if (line.is("--budget-s")) {
      o.budget_s = line.number(0.0);
    } else {
      refuse_unknown_option(line, "normlab tune");
    }
  }
  if (o.out.empty()) refuse_option("--out", "is needed: neither NORMLAB_TUNED_DIR nor HOME is set");
  if (o.update && o.kernel_filter.empty())
    refuse_option("--update", "needs --kernel: which candidates to time again");
  if (o.update && o.fresh) refuse_option("--update", "adds to a table; --fresh starts a new one");
  return o;
}

// Whether --kernel leaves @p candidate in: its key or its kernel's name contains the text.
bool chosen_by(const Options& o, const dispatch::Candidate& candidate) {
  return o.kernel_filter.empty() || candidate.key.find(o.kernel_filter) != std::string::npos ||
         candidate.kernel->name.find(o.kernel_filter) != std::string::npos;
}

struct Point {
  Op op;
  DType dtype;
  std::int64_t cols;
  std::int64_t rows;
};

std::int64_t big_rows(Op op, DType dtype, std::int64_t cols) {
  // A row's own bytes: the parameters, read once a call, are left out.
  const double bytes_a_row = bytes_moved(op, default_case(op, 2, cols, dtype).shape) -
                             bytes_moved(op, default_case(op, 1, cols, dtype).shape);
  return static_cast<std::int64_t>(std::ceil(kBigBytes / bytes_a_row));
}

std::vector<Point> grid(const Options& o) {
  std::vector<Point> points;
  for (DType dtype : o.dtypes) {
    std::vector<std::int64_t> widths = o.widths;
    if (widths.empty()) {
      for (std::size_t i = 0; i < std::size(kWidths); ++i) {
        if (dtype == DType::bf16 || i % 3 == 0) widths.push_back(kWidths[i]);
      }
    }
    for (Op op : o.ops) {
      for (std::int64_t cols : widths) {
        const std::size_t first = points.size();
        for (std::int64_t listed : o.rows) {
          const std::int64_t rows = listed == 0 ? big_rows(op, dtype, cols) : listed;
          // Once each: "big" is a listed count where 128 MiB of rows is exactly that many.
          if (std::none_of(points.begin() + static_cast<std::ptrdiff_t>(first), points.end(),
                           [&](const Point& p) { return p.rows == rows; }))
            points.push_back({op, dtype, cols, rows});
        }
      }
    }
  }
  return points;
}

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// The grid an update covered: its ops, dtypes, row counts and widths, as the options gave them.
std::string grid_of(const Options& o) {
  const auto joined = [](const auto& values, const auto& text) {
    std::string list;
    for (const auto& value : values) {
      if (!list.empty()) list += ',';
      list += text(value);
    }
    return list;
  };
  const auto number = [](std::int64_t n) { return std::to_string(n); };
  return "ops " + joined(o.ops, [](Op op) { return std::string(name_of(op)); }) + ", dtypes " +
         joined(o.dtypes, [](DType d) { return std::string(name_of(d)); }) + ", rows " +
         joined(o.rows, [&](std::int64_t r) { return r == 0 ? std::string("big") : number(r); }) +
         ", widths " + (o.widths.empty() ? std::string("the grid's") : joined(o.widths, number));
}

// How the tuner times each candidate: as bench/compare_peers.py does.
TimingOptions timing_options(const Options& o) {
  return {.warmup = 3,
          .repetitions = o.repetitions,
          .flush_l2 = true,
          .head_start_cycles = kHeadStartCycles};
}

// How every time in the table was taken (the header's timing line; an update names its own).
std::string timing_of(const Options& o) {
  const TimingOptions t = timing_options(o);
  return "warm-up " + std::to_string(t.warmup) + ", median of " + std::to_string(t.repetitions) +
         ", L2 flushed before each repetition, then a busy-wait of " +
         std::to_string(t.head_start_cycles) + " cycles (CUDA events)";
}

// The table this run adds to: the one for this GPU in @p o.out (resumed), or a new one.
dispatch::TunedTable table_to_fill(const Options& o, std::string& path) {
  const std::string device = device_name();
  if (!o.fresh) {
    path = dispatch::tuned_table_file_in(o.out, device);
    if (!path.empty()) return dispatch::read_tuned_table(path);
  }
  const double roof = copy_roof().gbps;
  dispatch::TunedTable table;
  table.name = dispatch::tuned_table_file_name(device, roof);
  table.device = device;
  table.copy_roof_gbps = roof;
  char roof_text[32];
  std::snprintf(roof_text, sizeof roof_text, "%.1f", roof);
  table.header = {
      {"device", device},
      {"compute_capability", std::to_string(compute_capability())},
      {"copy_roof_gbps", roof_text},
      {"date", now_utc()},
      {"timing", timing_of(o)},
      {"check",
       "each candidate against float64 on up to 2^20 elements' rows (at least 64) "
       "of the same width, before it is timed"},
      {"format", "op, dtype, rows, cols, then family/config=milliseconds fastest first"},
  };
  path = (std::filesystem::path(o.out) / table.name).string();
  return table;
}

void write_table(const dispatch::TunedTable& table, const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << dispatch::format_tuned_table(table);
    if (!out) throw std::runtime_error("cannot write " + partial);
  }
  std::filesystem::rename(partial, path);
}

// @p entry's ranking fastest first (ties in the order timed).
void sort_fastest_first(dispatch::TunedEntry& entry) {
  std::stable_sort(
      entry.ranking.begin(), entry.ranking.end(),
      [](const dispatch::TunedTime& a, const dispatch::TunedTime& b) { return a.ms < b.ms; });
}

// One grid point: the ranking of every candidate that takes it and passes its check; @p failed
// gets a line for each that does not pass.
dispatch::TunedEntry tune_point(const Point& p, const Options& o,
                                std::vector<std::string>& failed) {
  const Case timed = default_case(p.op, p.rows, p.cols, p.dtype);
  const Case checked = default_case(
      p.op, std::min(p.rows, std::max(kFewestCheckRows, kCheckElements / p.cols)), p.cols, p.dtype);
  const dispatch::Facts facts = dispatch::facts_of(timed, 0);  // 0: asks this GPU
  std::vector<const dispatch::Candidate*> taking;
  for (const dispatch::Candidate& candidate : dispatch::candidates()) {
    if (!chosen_by(o, candidate)) continue;
    if (dispatch::refusal_of(candidate, facts).empty()) taking.push_back(&candidate);
  }
  dispatch::TunedEntry entry{.op = p.op, .dtype = p.dtype, .rows = p.rows, .cols = p.cols};
  if (taking.empty()) return entry;  // nothing to check or time: no tensors made
  std::vector<const dispatch::Candidate*> passed;
  {
    Workspace check(checked);
    for (const dispatch::Candidate* candidate : taking) {
      try {
        const CaseResult result = check.verify(*candidate->kernel);
        if (result.passed()) {
          passed.push_back(candidate);
        } else {
          failed.push_back(result.describe());
        }
      } catch (const std::invalid_argument& refusal) {
        // The chooser would have picked it for this call: a refusal here is a wrong capability.
        failed.push_back(candidate->kernel->name +
                         " refused a call its capabilities take: " + refusal.what());
      } catch (const std::runtime_error& error) {  // e.g. a cluster this GPU cannot place
        failed.push_back(candidate->kernel->name + " could not run: " + error.what());
      }
    }
  }
  Workspace workspace(timed);
  const TimingOptions timing = timing_options(o);
  for (const dispatch::Candidate* candidate : passed) {
    entry.ranking.push_back(
        {candidate->key, workspace.time(*candidate->kernel, timing).timing.median_ms});
  }
  sort_fastest_first(entry);
  return entry;
}

// @p entry's ranking with the candidates --kernel picks replaced by @p timed's, fastest first.
// A time whose key no longer names a candidate of the op (a configuration since dropped, or no
// longer compiled for the op) goes too: nothing could run it.
void rank_in(dispatch::TunedEntry& entry, const dispatch::TunedEntry& timed, const Options& o) {
  std::erase_if(entry.ranking, [&](const dispatch::TunedTime& time) {
    const dispatch::Candidate* candidate = dispatch::candidate_keyed(entry.op, time.candidate);
    return candidate == nullptr || chosen_by(o, *candidate);
  });
  entry.ranking.insert(entry.ranking.end(), timed.ranking.begin(), timed.ranking.end());
  sort_fastest_first(entry);
}

// What --list prints: each op's candidates (those --kernel leaves), then the grid's size.
int list_candidates(const Options& o) {
  for (Op op : o.ops) {
    std::printf("%s:\n", name_of(op));
    for (const dispatch::Candidate& candidate : dispatch::candidates()) {
      if (candidate.kernel->op != op || !chosen_by(o, candidate)) continue;
      std::printf("  %-22s %-32s %s\n", candidate.key.c_str(), candidate.kernel->name.c_str(),
                  candidate.kernel->summary.c_str());
    }
  }
  std::printf("grid: %zu points\n", grid(o).size());
  return 0;
}

}  // namespace

int tune_command(int argc, char** argv, int first) {
  if (asks_for_help(argc, argv, first)) {
    std::printf("%s", kTuneUsage.c_str());
    return 0;
  }
  Options o;
  try {
    o = parse(argc, argv, first);
  } catch (const std::invalid_argument& error) {
    return usage_error("normlab tune", error.what());
  }
  if (o.list) return list_candidates(o);
  if (report_missing_gpu("normlab tune")) return kNoGpuExitCode;
  std::string path;
  dispatch::TunedTable table = table_to_fill(o, path);
  std::set<std::tuple<Op, DType, std::int64_t, std::int64_t>> done;
  for (const dispatch::TunedEntry& e : table.entries)
    done.insert({e.op, e.dtype, e.rows, e.cols});
  const std::vector<Point> points = grid(o);
  std::printf("normlab tune: %s, copy roof %.0f GB/s; %zu grid points, %zu already in %s\n",
              table.device.c_str(), table.copy_roof_gbps, points.size(), done.size(), path.c_str());
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (o.update) {
    table.header.emplace_back("updated", now_utc() + ": candidates matching '" + o.kernel_filter +
                                             "' timed and ranked in at " + grid_of(o) + "; " +
                                             timing_of(o));
  } else if (!done.empty() && std::ranges::any_of(points, [&](const Point& p) {
               return !done.contains({p.op, p.dtype, p.rows, p.cols});
             })) {
    // A resumed table: the points this run adds may be timed otherwise than its first ones.
    table.header.emplace_back(
        "added",
        now_utc() + ": the points of " + grid_of(o) + " not in the table" +
            (o.kernel_filter.empty() ? std::string()
                                     : ", candidates matching '" + o.kernel_filter + "' only") +
            "; " + timing_of(o));
  }
  std::vector<std::string> failed;
  std::size_t index = 0;
  std::size_t added = 0;
  for (const Point& p : points) {
    ++index;
    const bool in_table = done.contains({p.op, p.dtype, p.rows, p.cols});
    if (in_table && !o.update) continue;
    if (!in_table && o.update) {  // a ranking of the --kernel candidates alone would mislead
      std::printf(
          "[%zu/%zu] %s %s %lld x %lld: not in the table, left for a run without --update\n", index,
          points.size(), name_of(p.op), name_of(p.dtype), static_cast<long long>(p.rows),
          static_cast<long long>(p.cols));
      continue;
    }
    if (o.budget_s > 0 && seconds() > o.budget_s) {
      std::printf("normlab tune: stopped at the %.0f s budget; run it again to resume\n",
                  o.budget_s);
      break;
    }
    const std::size_t failed_before = failed.size();
    dispatch::TunedEntry entry = tune_point(p, o, failed);
    for (std::size_t f = failed_before; f < failed.size(); ++f)
      std::fprintf(stderr, "normlab tune: FAILED its check, left out: %s\n", failed[f].c_str());
    if (in_table) {
      const auto kept =
          std::find_if(table.entries.begin(), table.entries.end(), [&](const auto& e) {
            return e.op == p.op && e.dtype == p.dtype && e.rows == p.rows && e.cols == p.cols;
          });
      rank_in(*kept, entry, o);
      entry = *kept;
    }
    std::printf("[%zu/%zu] %s %s %lld x %lld: ", index, points.size(), name_of(p.op),
                name_of(p.dtype), static_cast<long long>(p.rows), static_cast<long long>(p.cols));
    if (entry.ranking.empty()) {
      std::printf("no candidate takes it\n");
    } else {
      std::printf("%s %.4g ms", entry.ranking[0].candidate.c_str(), entry.ranking[0].ms);
      if (entry.ranking.size() > 1) {
        std::printf(", runner-up %s %.4g ms", entry.ranking[1].candidate.c_str(),
                    entry.ranking[1].ms);
      }
      std::printf(" (%zu ranked)\n", entry.ranking.size());
      if (!in_table) table.entries.push_back(std::move(entry));
      write_table(table, path);
      ++added;
    }
    std::fflush(stdout);
  }
  std::printf("normlab tune: %zu grid points added to %s in %.0f s (%zu in it)\n", added,
              path.c_str(), seconds(), table.entries.size());
  if (!failed.empty()) {
    std::printf("normlab tune: %zu candidates failed their check and were left out\n",
                failed.size());
    return 1;
  }
  return 0;
}

}  // namespace normlab::tool
