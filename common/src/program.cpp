#include "normlab/program.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "normlab/roofline.hpp"

namespace normlab {

namespace {

std::int64_t parse_count(const std::string& option, const char* text, std::int64_t minimum) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  check_argument(end != text && *end == '\0' && value >= minimum, "options", option.c_str(),
                 "must be an integer >= " + std::to_string(minimum) + " (got '" + text + "')");
  return value;
}

std::string json_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out;
}

}  // namespace

std::vector<const KernelEntry*> select_kernels(const std::vector<KernelEntry>& kernels,
                                               const ProgramOptions& options) {
  std::vector<const KernelEntry*> chosen;
  for (const KernelEntry& kernel : kernels) {
    const Case c = default_case(kernel.op, options.rows, options.cols, options.dtype);
    if (kernel.name.find(options.filter) != std::string::npos && kernel.supports(c)) {
      chosen.push_back(&kernel);
    }
  }
  return chosen;
}

TimingOptions timing_for(const ProgramOptions& options) {
  return options.quick ? TimingOptions{.warmup = 0, .repetitions = 1, .flush_l2 = false}
                       : TimingOptions{};
}

ProgramOptions parse_program_options(int argc, char** argv, int first) {
  ProgramOptions options;
  for (int i = first; i < argc; ++i) {
    const std::string option = argv[i];
    const bool has_value = i + 1 < argc;
    auto value = [&]() -> const char* {
      check_argument(has_value, "options", option.c_str(), "needs a value");
      return argv[++i];
    };
    if (option == "--rows") {
      options.rows = parse_count(option, value(), 1);
    } else if (option == "--cols") {
      options.cols = parse_count(option, value(), 1);
    } else if (option == "--dtype") {
      options.dtype = parse_dtype(value(), "--dtype");
    } else if (option == "--op") {
      options.op = parse_op(value(), "--op");
    } else if (option == "--json") {
      options.json = value();
    } else if (option == "--kernel") {
      options.filter = value();
    } else if (option == "--quick") {
      options.quick = true;
    } else {
      check_argument(false, "options", option.c_str(), "is not a known option");
    }
  }
  return options;
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
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ResultRow& row = rows[i];
    if (!row.passed) continue;
    const double ms = row.measurement.timing.median_ms;
    for (std::size_t j = 0; j < i; ++j) {
      const ResultRow& earlier = rows[j];
      if (!earlier.passed || earlier.kernel->op != row.kernel->op) continue;
      if (earlier.kernel->baseline && !row.speedup_vs_baseline) {
        row.speedup_vs_baseline = earlier.measurement.timing.median_ms / ms;
      }
      if (earlier.kernel->chapter < row.kernel->chapter) {
        row.speedup_vs_previous = earlier.measurement.timing.median_ms / ms;
      }
    }
  }
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
  const CopyRoof& roof = copy_roof();
  out << "{\n  \"gpu\": \"" << json_escape(device_name()) << "\",\n";
  out << "  \"copy_roof_gbps\": " << roof.gbps << ",\n";
  out << "  \"problem\": {\"rows\": " << options.rows << ", \"cols\": " << options.cols
      << ", \"dtype\": \"" << name_of(options.dtype) << "\"},\n";
  out << "  \"kernels\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ResultRow& row = rows[i];
    out << "    {\"name\": \"" << row.kernel->name << "\", \"chapter\": " << row.kernel->chapter
        << ", \"op\": \"" << name_of(row.kernel->op) << "\", \"case\": \""
        << json_escape(row.problem) << "\""
        << ", \"passed\": " << (row.passed ? "true" : "false")
        << ", \"median_ms\": " << row.measurement.timing.median_ms
        << ", \"min_ms\": " << row.measurement.timing.min_ms
        << ", \"bytes\": " << row.measurement.bytes << ", \"gbps\": " << row.measurement.gbps
        << ", \"percent_of_copy_roof\": " << row.measurement.percent_of_roof;
    if (row.speedup_vs_baseline) out << ", \"speedup_vs_eager\": " << *row.speedup_vs_baseline;
    if (row.speedup_vs_previous) out << ", \"speedup_vs_previous\": " << *row.speedup_vs_previous;
    out << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
}

int chapter_main(int argc, char** argv, const std::vector<KernelEntry>& kernels) {
  ProgramOptions options;
  try {
    if (argc > 1 && std::string(argv[1]) == "--help") {
      std::printf(
          "usage: %s [--rows M] [--cols N] [--dtype fp32|fp16|bf16] [--kernel NAME] "
          "[--json FILE] [--quick]\n",
          argv[0]);
      return 0;
    }
    options = parse_program_options(argc, argv, 1);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  if (const std::string reason = gpu_unavailable_reason(); !reason.empty()) {
    std::fprintf(stderr, "%s: %s; this program runs kernels and needs a CUDA GPU.\n", argv[0],
                 reason.c_str());
    return kNoGpuExitCode;
  }
  try {
    const std::vector<const KernelEntry*> chosen = select_kernels(kernels, options);
    check_argument(!chosen.empty(), argv[0], "--kernel/--dtype/--cols", "leave no kernel to run");
    const std::vector<ResultRow> rows = run_table(chosen, options, timing_for(options));
    print_table(rows, options);
    if (!options.json.empty()) write_json(rows, options, options.json);
    for (const ResultRow& row : rows) {
      if (!row.passed) return 1;
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
    return 1;
  }
}

}  // namespace normlab
