// SPDX-License-Identifier: Apache-2.0
// Chapter 13 program: the configuration space of one op at one problem (every configuration of
// chapter 09's table, kept or pruned with the reason), the configuration chapter 09's rules
// pick; then, on a GPU, every kept configuration checked against float64 and timed, beside the
// rules' kernel (ch09_<op>) and chapter 07's, and how much longer the rules' pick took than the
// fastest. Without a GPU it lists the space and says that timing needs one.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "configured_entries.hpp"
#include "normlab/program.hpp"
#include "normlab/registry.hpp"
#include "space.hpp"

namespace {

using namespace normlab;
namespace configured = kernels::configured;

constexpr const char* kProgram = "ch13_tuning_by_search";

std::string usage() {
  return std::string("usage: ") + kProgram +
         " [options]\n"
         "lists the configuration space of one op at one problem (what can hold the row, and why\n"
         "the rest is pruned), then checks each kept configuration against float64 and times it\n" +
         kProgramOptionsUsage +
         "  (--op: the space is listed for that op, rmsnorm when none is given)\n"
         "exit codes: 0 ok, 1 a kernel failed verification, 2 bad usage, 69 no CUDA GPU\n";
}

void print_space(Op op, const ProgramOptions& o) {
  const configured::Problem p = ch13::contiguous_problem(op, o.rows, o.cols, o.dtype);
  std::printf("%s %s %lld x %lld: a row spans %lld 16-byte chunks%s\n", name_of(op),
              name_of(o.dtype), static_cast<long long>(o.rows), static_cast<long long>(o.cols),
              static_cast<long long>(p.chunks),
              p.aligned ? ", on the 16-byte grid" : ", off the 16-byte grid");
  std::printf("  %-20s %6s  %s\n", "configuration", "holds", "verdict");
  int kept = 0;
  for (const ch13::Place& place : ch13::space_at(p)) {
    const std::string held = place.held == 0 ? "any" : std::to_string(place.held);
    const bool keep = place.pruned_why.empty();
    kept += keep ? 1 : 0;
    std::printf("  %-20s %6s  %s%s\n", configured::kConfigs[place.config].name, held.c_str(),
                keep ? "kept" : "pruned: ", place.pruned_why.c_str());
  }
  std::printf("kept %d of %d; chapter 09's rules pick %s\n", kept, configured::kConfigCount,
              ch13::rules_pick(p).c_str());
}

// The rules' kernel and chapter 07's (the table's `wide`), from the registry, then one entry a
// kept configuration of the op.
std::vector<KernelEntry> kernels_to_time(Op op, const ProgramOptions& o) {
  std::vector<KernelEntry> kernels;
  for (const char* chapter : {"ch09_", "ch07_"}) {
    if (const KernelEntry* entry = find_kernel(std::string(chapter) + name_of(op)))
      kernels.push_back(*entry);
  }
  const std::vector<ch13::Place> space =
      ch13::space_at(ch13::contiguous_problem(op, o.rows, o.cols, o.dtype));
  for (KernelEntry& entry : configured::config_entries()) {
    if (entry.op != op) continue;
    const int config = configured::config_index(entry.name.substr(entry.name.find('@') + 1));
    if (space[config].pruned_why.empty()) kernels.push_back(std::move(entry));
  }
  return kernels;
}

// How much longer the rules' kernel took than the fastest that passed.
void print_rules_against_fastest(const std::vector<ResultRow>& rows, Op op) {
  const std::string rules = std::string("ch09_") + name_of(op);
  const ResultRow* fastest = nullptr;
  const ResultRow* ruled = nullptr;
  for (const ResultRow& row : rows) {
    if (!row.passed) continue;
    if (fastest == nullptr ||
        row.measurement.timing.median_ms < fastest->measurement.timing.median_ms)
      fastest = &row;
    if (row.kernel->name == rules) ruled = &row;
  }
  if (fastest == nullptr || ruled == nullptr) return;
  std::printf("fastest: %s, %.4f ms; the rules' pick (%s) took %.3f times as long\n",
              fastest->kernel->name.c_str(), fastest->measurement.timing.median_ms, rules.c_str(),
              ruled->measurement.timing.median_ms / fastest->measurement.timing.median_ms);
}

}  // namespace

int main(int argc, char** argv) {
  if (asks_for_help(argc, argv, 1)) {
    std::printf("%s", usage().c_str());
    return 0;
  }
  ProgramOptions options;
  try {
    options = parse_program_options(argc, argv, 1, kProgram);
    if (options.op && !is_forward_norm(*options.op))
      refuse_option("--op", "takes a forward norm (the configurations' ops)");
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "%s: %s\n%s", kProgram, error.what(), usage().c_str());
    return 2;
  }
  const Op op = options.op.value_or(Op::rmsnorm);
  options.op = op;
  print_space(op, options);
  std::fflush(stdout);  // the space before the line that says a GPU is missing
  if (report_missing_gpu(kProgram)) return kNoGpuExitCode;
  try {
    const std::vector<KernelEntry> kernels = kernels_to_time(op, options);
    const KernelSelection selection = select_kernels(kernels, options);
    for (const Refusal& refusal : selection.refused)
      std::printf("refused: %s: %s\n", refusal.kernel->name.c_str(), refusal.reason.c_str());
    const std::vector<ResultRow> rows = run_table(selection.runnable, options, timing_for(options));
    print_table(rows, options);
    if (!options.json.empty()) write_json(rows, options, options.json);
    print_rules_against_fastest(rows, op);
    for (const ResultRow& row : rows) {
      if (!row.passed) return 1;
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", kProgram, error.what());
    return 1;
  }
}
