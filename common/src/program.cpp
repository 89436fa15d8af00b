// SPDX-License-Identifier: Apache-2.0
#include "normlab/program.hpp"

#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "normlab/check.hpp"
#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/json.hpp"
#include "normlab/roofline.hpp"

namespace normlab {

const char* const kProgramOptionsUsage =
    "  --op OP          run only OP's kernels (rmsnorm, layernorm, add_rmsnorm, ...; default all)\n"
    "  --rows M         rows of the problem (default 2048)\n"
    "  --cols N         columns of the problem (default 8192)\n"
    "  --dtype T        fp32|fp16|bf16 (default fp32)\n"
    "  --kernel NAME    run only kernels whose name contains NAME\n"
    "  --json FILE      write the table as JSON into FILE too\n"
    "  --quick          one timed repetition, no warm-up\n"
    "  --help           print this and exit\n";

ProgramOptions parse_program_options(int argc, char** argv, int first, std::string_view program) {
  ProgramOptions options;
  CommandLine line(argc, argv, first);
  while (line.next()) {
    if (line.is("--rows")) {
      options.rows = line.integer(1);
    } else if (line.is("--cols")) {
      options.cols = line.integer(1);
    } else if (line.is("--dtype")) {
      options.dtype = parse_dtype(line.value(), "--dtype");
    } else if (line.is("--op")) {
      options.op = parse_op(line.value(), "--op");
    } else if (line.is("--json")) {
      options.json = line.value();
    } else if (line.is("--kernel")) {
      options.filter = line.value();
    } else if (line.is("--quick")) {
      options.quick = true;
    } else {
      line.refuse_unknown(program);
    }
  }
  return options;
}

KernelSelection select_kernels(const std::vector<KernelEntry>& kernels,
                               const ProgramOptions& options) {
  KernelSelection selection;
  for (const KernelEntry& kernel : kernels) {
    if (options.op && kernel.op != *options.op) continue;
    if (kernel.name.find(options.filter) == std::string::npos) continue;
    const Case c = default_case(kernel.op, options.rows, options.cols, options.dtype);
    if (std::string reason = kernel.refusal(c); !reason.empty()) {
      selection.refused.push_back({&kernel, std::move(reason)});
    } else {
      selection.runnable.push_back(&kernel);
    }
  }
  return selection;
}

TimingOptions timing_for(const ProgramOptions& options) {
  return options.quick ? TimingOptions{.warmup = 0, .repetitions = 1, .flush_l2 = false}
                       : TimingOptions{};
}

void fill_speedups(std::vector<ResultRow>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ResultRow& row = rows[i];
    row.speedup_vs_baseline.reset();
    row.speedup_vs_previous.reset();
    if (!row.passed) continue;
    const double ms = row.measurement.timing.median_ms;
    const ResultRow* fastest_earlier = nullptr;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const ResultRow& other = rows[j];
      if (!other.passed || other.kernel->op != row.kernel->op) continue;
      if (j < i && other.kernel->baseline && !row.speedup_vs_baseline) {
        row.speedup_vs_baseline = other.measurement.timing.median_ms / ms;
      }
      if (other.kernel->chapter < row.kernel->chapter &&
          (!fastest_earlier ||
           other.measurement.timing.median_ms < fastest_earlier->measurement.timing.median_ms)) {
        fastest_earlier = &other;
      }
    }
    if (fastest_earlier)
      row.speedup_vs_previous = fastest_earlier->measurement.timing.median_ms / ms;
  }
}

std::vector<ResultRow> run_table(const std::vector<const KernelEntry*>& kernels,
                                 const ProgramOptions& options, const TimingOptions& timing) {
  // One workspace (inputs, reference) per op, shared by every kernel of that op.
  std::map<Op, std::unique_ptr<Workspace>> workspaces;
  std::vector<ResultRow> rows;
  for (const KernelEntry* kernel : kernels) {
    auto& workspace = workspaces[kernel->op];
    if (!workspace) {
      workspace = std::make_unique<Workspace>(
          default_case(kernel->op, options.rows, options.cols, options.dtype));
    }
    ResultRow row;
    row.kernel = kernel;
    row.problem = workspace->problem().describe();
    const CaseResult check = workspace->verify(*kernel);
    row.passed = check.passed();
    if (!row.passed) row.failure = check.describe();
    row.measurement = workspace->time(*kernel, timing);
    rows.push_back(row);
  }
  fill_speedups(rows);
  return rows;
}

void print_table(const std::vector<ResultRow>& rows, const ProgramOptions& options) {
  const CopyRoof& roof = copy_roof();
  std::printf("GPU: %s\n", device_name().c_str());
  std::printf("copy roof: %.1f GB/s (cudaMemcpy device to device, bytes read + written)\n",
              roof.gbps);
  std::printf("problem: %lld x %lld %s (seeded normal inputs; LayerNorm with weight and bias)\n\n",
              static_cast<long long>(options.rows), static_cast<long long>(options.cols),
              name_of(options.dtype));
  std::printf("%-3s %-30s %-11s %-6s %10s %9s %8s %9s %9s\n", "ch", "kernel", "op", "check",
              "time (us)", "GB/s", "% roof", "x eager", "x prev");
  for (const ResultRow& row : rows) {
    char vs_base[16] = "-", vs_prev[16] = "-";
    if (row.speedup_vs_baseline)
      std::snprintf(vs_base, sizeof vs_base, "%.2f", *row.speedup_vs_baseline);
    if (row.speedup_vs_previous)
      std::snprintf(vs_prev, sizeof vs_prev, "%.2f", *row.speedup_vs_previous);
    std::printf("%02d  %-30s %-11s %-6s %10.1f %9.1f %7.1f%% %9s %9s\n", row.kernel->chapter,
                row.kernel->name.c_str(), name_of(row.kernel->op), row.passed ? "ok" : "FAIL",
                row.measurement.timing.median_ms * 1e3, row.measurement.gbps,
                row.measurement.percent_of_roof, vs_base, vs_prev);
  }
  for (const ResultRow& row : rows) {
    if (!row.passed) std::printf("\n%s", row.failure.c_str());
  }
}

void write_json(const std::vector<ResultRow>& rows, const ProgramOptions& options,
                const std::string& path) {
  std::ofstream out(path);
  check_argument(out.good(), "write_json", "--json", "cannot open '" + path + "' for writing");
  JsonWriter json(out);
  json.begin_object()
      .member("gpu", device_name())
      .member("copy_roof_gbps", copy_roof().gbps)
      .key("problem")
      .begin_object()
      .member("rows", options.rows)
      .member("cols", options.cols)
      .member("dtype", name_of(options.dtype))
      .end_object();
  json.key("kernels").begin_array();
  for (const ResultRow& row : rows) {
    json.begin_object()
        .member("name", row.kernel->name)
        .member("chapter", row.kernel->chapter)
        .member("op", name_of(row.kernel->op))
        .member("case", row.problem)
        .member("passed", row.passed)
        .member("median_ms", row.measurement.timing.median_ms)
        .member("min_ms", row.measurement.timing.min_ms)
        .member("bytes", row.measurement.bytes)
        .member("gbps", row.measurement.gbps)
        .member("percent_of_copy_roof", row.measurement.percent_of_roof);
    if (row.speedup_vs_baseline) json.member("speedup_vs_eager", *row.speedup_vs_baseline);
    if (row.speedup_vs_previous) json.member("speedup_vs_previous", *row.speedup_vs_previous);
    json.end_object();
  }
  json.end_array().end_object();
  check_argument(out.good(), "write_json", "--json", "could not write '" + path + "'");
}

namespace {

void print_refusals(std::FILE* out, const std::vector<Refusal>& refused,
                    const ProgramOptions& options) {
  for (const Refusal& refusal : refused) {
    const Case c = default_case(refusal.kernel->op, options.rows, options.cols, options.dtype);
    std::fprintf(out, "skipped %s: it refuses %s: %s\n", refusal.kernel->name.c_str(),
                 c.describe().c_str(), refusal.reason.c_str());
  }
  if (!refused.empty() && out == stdout) std::printf("\n");
}

}  // namespace

int table_program(std::string_view program, std::string_view usage, int argc, char** argv,
                  int first, const std::vector<KernelEntry>& kernels) {
  const std::string name(program);
  if (asks_for_help(argc, argv, first)) {
    std::printf("%s", std::string(usage).c_str());
    return 0;
  }
  ProgramOptions options;
  KernelSelection selection;
  try {
    options = parse_program_options(argc, argv, first, program);
    selection = select_kernels(kernels, options);
    if (selection.runnable.empty() && selection.refused.empty())
      refuse_option(options.op ? "--op/--kernel" : "--kernel", "leaves no kernel to run");
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "%s: %s\n%s", name.c_str(), error.what(), std::string(usage).c_str());
    return 2;
  }
  // Refusals of the arguments first; then the GPU; then the kernels that refuse the problem.
  if (selection.runnable.empty()) {
    print_refusals(stderr, selection.refused, options);
    std::fprintf(stderr, "%s: every kernel chosen refuses the problem\n", name.c_str());
    return 2;
  }
  if (report_missing_gpu(program)) return kNoGpuExitCode;
  print_refusals(stdout, selection.refused, options);
  try {
    const std::vector<ResultRow> rows = run_table(selection.runnable, options, timing_for(options));
    print_table(rows, options);
    if (!options.json.empty()) write_json(rows, options, options.json);
    for (const ResultRow& row : rows) {
      if (!row.passed) return 1;
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), error.what());
    return 1;
  }
}

int chapter_main(int argc, char** argv, const std::vector<KernelEntry>& kernels) {
  const std::string usage = std::string("usage: ") + argv[0] + " [options]\n" +
                            "runs this chapter's kernels on one problem, verifies each against "
                            "float64 and prints a table\n" +
                            kProgramOptionsUsage +
                            "exit codes: 0 ok, 1 a kernel failed verification, 2 bad usage, "
                            "69 no CUDA GPU\n";
  const std::string_view path = argv[0];
  const std::string_view program = path.substr(path.find_last_of('/') + 1);
  return table_program(program, usage, argc, argv, 1, kernels);
}

}  // namespace normlab
