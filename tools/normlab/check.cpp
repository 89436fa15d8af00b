// normlab check: one kernel (chapter 07's by default) on one case, every output compared with
// the float64 reference; optionally the inputs and outputs dumped for a side-by-side run.
#include "check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

#include "normlab/device.hpp"
#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"
#include "registry.hpp"

namespace normlab::tool {

const char* const kCheckUsage =
    "usage: normlab check --op rmsnorm|layernorm|add_rmsnorm|add_layernorm --dtype fp32|fp16|bf16\n"
    "                     --rows M --cols N [options]\n"
    "  --weight-dtype same|fp32  weight and bias in the input dtype (default) or in fp32\n"
    "  --row-stride S            elements between rows (S >= N; default N)\n"
    "  --misalign E              shift every activation's base by E elements (default 0)\n"
    "  --no-weight               no weight (scale 1)\n"
    "  --bias                    a bias (LayerNorm ops)\n"
    "  --gemma                   scale by (1 + w)\n"
    "  --eps E                   (default 1e-5)\n"
    "  --in-place                y over x; for add + norm, the new residual over the old\n"
    "  --seed K                  input seed (default 1)\n"
    "  --kernel NAME             run this registered kernel instead of chapter 07's\n"
    "  --dump DIR                write inputs, outputs and case.json into DIR\n"
    "  --json                    print the result as JSON\n"
    "exit codes: 0 PASS, 1 FAIL, 2 bad usage, 69 no CUDA GPU\n";

namespace {

struct CheckOptions {
  Case problem;
  std::string kernel;  // empty: chapter 07's kernel for the op
  std::string dump;    // empty: no dump
  bool json = false;
};

[[noreturn]] void refuse(const std::string& option, const std::string& why) {
  throw std::invalid_argument("option '" + option + "' " + why);
}

std::int64_t parse_integer(const std::string& option, const char* text, std::int64_t minimum) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || value < minimum) {
    refuse(option, "needs an integer >= " + std::to_string(minimum) + " (got '" + text + "')");
  }
  return value;
}

float parse_eps(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || std::isnan(value) || value < 0.0) {
    refuse("--eps", std::string("needs a number >= 0 (got '") + text + "')");
  }
  return static_cast<float>(value);
}

CheckOptions parse(int argc, char** argv, int first) {
  CheckOptions options;
  std::optional<Op> op;
  std::optional<DType> dtype;
  std::optional<std::int64_t> rows, cols, row_stride;
  bool fp32_parameters = false, no_weight = false, bias = false;
  Case& c = options.problem;
  for (int i = first; i < argc; ++i) {
    const std::string option = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) refuse(option, "needs a value");
      return argv[++i];
    };
    if (option == "--op") {
      op = parse_op(value(), "--op");
      if (*op != Op::rmsnorm && *op != Op::layernorm && *op != Op::add_rmsnorm &&
          *op != Op::add_layernorm) {
        refuse(option, "must be rmsnorm, layernorm, add_rmsnorm or add_layernorm");
      }
    } else if (option == "--dtype") {
      dtype = parse_dtype(value(), "--dtype");
    } else if (option == "--weight-dtype") {
      const std::string text = value();
      if (text != "same" && text != "fp32")
        refuse(option, "must be same or fp32 (got '" + text + "')");
      fp32_parameters = text == "fp32";
    } else if (option == "--rows") {
      rows = parse_integer(option, value(), 0);
    } else if (option == "--cols") {
      cols = parse_integer(option, value(), 1);
    } else if (option == "--row-stride") {
      row_stride = parse_integer(option, value(), 1);
    } else if (option == "--misalign") {
      c.misalign = parse_integer(option, value(), 0);
    } else if (option == "--no-weight") {
      no_weight = true;
    } else if (option == "--bias") {
      bias = true;
    } else if (option == "--gemma") {
      c.weight_plus_one = true;
    } else if (option == "--eps") {
      c.eps = parse_eps(value());
    } else if (option == "--in-place") {
      c.in_place = true;
    } else if (option == "--seed") {
      c.input.seed = static_cast<std::uint64_t>(parse_integer(option, value(), 0));
    } else if (option == "--kernel") {
      options.kernel = value();
    } else if (option == "--dump") {
      options.dump = value();
    } else if (option == "--json") {
      options.json = true;
    } else {
      refuse(option, "is not an option of normlab check");
    }
  }
  if (!op) refuse("--op", "is required");
  if (!dtype) refuse("--dtype", "is required");
  if (!rows) refuse("--rows", "is required");
  if (!cols) refuse("--cols", "is required");
  if (row_stride && *row_stride < *cols) {
    refuse("--row-stride", "must be >= --cols (got " + std::to_string(*row_stride) + " < " +
                               std::to_string(*cols) + ")");
  }
  const bool layernorm = is_layernorm(*op);
  if (bias && !layernorm) refuse("--bias", "needs --op layernorm or add_layernorm");
  if (c.weight_plus_one && no_weight) refuse("--gemma", "scales by (1 + w) and needs a weight");
  c.op = *op;
  c.shape = {.rows = *rows,
             .cols = *cols,
             .dtype = *dtype,
             .weight_dtype = fp32_parameters ? DType::f32 : *dtype,
             .weight = !no_weight,
             .bias = bias};
  c.pad = row_stride ? *row_stride - *cols : 0;
  return options;
}

// The kernel to run: --kernel NAME, or chapter 07's for the op. Refused by name when it does
// not exist or cannot run the case.
const KernelEntry& choose_kernel(const CheckOptions& options) {
  const Case& c = options.problem;
  const KernelEntry* kernel =
      options.kernel.empty() ? default_kernel(c.op) : find_kernel(options.kernel);
  if (kernel == nullptr) {
    if (options.kernel.empty())
      refuse("--op", std::string("has no default kernel for ") + name_of(c.op));
    refuse("--kernel", "names no registered kernel ('" + options.kernel + "'; see normlab list)");
  }
  const std::string refusal = kernel->refusal(c);
  if (!refusal.empty()) {
    refuse("--kernel",
           "names " + kernel->name + ", which refuses " + c.describe() + ": " + refusal);
  }
  return *kernel;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

void print_json(const KernelEntry& kernel, const CheckOptions& options, const CaseResult& result,
                double max_abs, double max_rel) {
  const Tolerance tolerance = tolerance_for(options.problem.shape.dtype);
  std::printf("{\"result\": \"%s\", \"kernel\": %s, \"case\": %s,\n",
              result.passed() ? "PASS" : "FAIL", json_string(kernel.name).c_str(),
              json_string(result.case_description).c_str());
  std::printf(
      " \"tolerance\": {\"abs\": %s, \"rel\": %s}, \"max_abs_error\": %s, \"max_rel_error\": %s,\n",
      json_number(tolerance.abs).c_str(), json_number(tolerance.rel).c_str(),
      json_number(max_abs).c_str(), json_number(max_rel).c_str());
  if (!options.dump.empty()) std::printf(" \"dump\": %s,\n", json_string(options.dump).c_str());
  std::printf(" \"outputs\": [");
  for (std::size_t i = 0; i < result.reports.size(); ++i) {
    const CompareReport& r = result.reports[i];
    std::printf(
        "%s\n  {\"name\": %s, \"passed\": %s, \"checked\": %lld, \"mismatches\": %lld, "
        "\"non_finite\": %lld, \"unwritten\": %lld, \"guard_overwrites\": %lld, "
        "\"max_abs_error\": %s, \"max_rel_error\": %s, \"first\": [",
        i ? "," : "", json_string(r.what).c_str(), r.passed() ? "true" : "false",
        static_cast<long long>(r.checked), static_cast<long long>(r.mismatches),
        static_cast<long long>(r.non_finite), static_cast<long long>(r.unwritten),
        static_cast<long long>(r.guard_overwrites), json_number(r.max_abs_error).c_str(),
        json_number(r.max_rel_error).c_str());
    for (std::size_t j = 0; j < r.first.size(); ++j) {
      const Mismatch& m = r.first[j];
      std::printf("%s{\"row\": %lld, \"col\": %lld, \"got\": %s, \"want\": %s}", j ? ", " : "",
                  static_cast<long long>(m.row), static_cast<long long>(m.col),
                  json_number(m.got).c_str(), json_number(m.want).c_str());
    }
    std::printf("]}");
  }
  std::printf("\n ]}\n");
}

void print_text(const KernelEntry& kernel, const CaseResult& result, Tolerance tolerance,
                double max_abs, double max_rel) {
  std::printf("%s: %s on %s\n", result.passed() ? "PASS" : "FAIL", kernel.name.c_str(),
              result.case_description.c_str());
  std::printf("tolerance: |got - want| <= %g + %g * |want|\n", tolerance.abs, tolerance.rel);
  std::printf("max abs error %.3g, max rel error %.3g\n", max_abs, max_rel);
  for (const CompareReport& r : result.reports)
    std::printf("  %s\n", r.describe().c_str());
}

}  // namespace

int check_command(int argc, char** argv, int first) {
  CheckOptions options;
  const KernelEntry* kernel = nullptr;
  try {
    options = parse(argc, argv, first);
    kernel = &choose_kernel(options);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "normlab check: %s\n%s", error.what(), kCheckUsage);
    return 2;
  }
  if (const std::string reason = gpu_unavailable_reason(); !reason.empty()) {
    std::fprintf(stderr, "normlab check: %s; it runs a kernel and needs a CUDA GPU.\n",
                 reason.c_str());
    return kNoGpuExitCode;
  }
  CaseResult result;
  try {
    Workspace workspace(options.problem);
    result = workspace.verify(*kernel);
    if (!options.dump.empty()) workspace.write_files(options.dump);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "normlab check: %s refuses the case: %s\n", kernel->name.c_str(),
                 error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "normlab check: %s\n", error.what());
    return 1;
  }
  double max_abs = 0.0, max_rel = 0.0;
  for (const CompareReport& r : result.reports) {
    max_abs = std::max(max_abs, r.max_abs_error);
    max_rel = std::max(max_rel, r.max_rel_error);
  }
  if (options.json) {
    print_json(*kernel, options, result, max_abs, max_rel);
  } else {
    print_text(*kernel, result, tolerance_for(options.problem.shape.dtype), max_abs, max_rel);
  }
  return result.passed() ? 0 : 1;
}

}  // namespace normlab::tool
