// SPDX-License-Identifier: Apache-2.0
// normlab check: one kernel (the op's default by default) on one case, every output compared with
// the float64 reference; optionally the inputs and outputs dumped for a side-by-side run.
#include "check.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/json.hpp"
#include "normlab/kernel.hpp"
#include "normlab/random.hpp"
#include "normlab/runner.hpp"
#include "registry.hpp"

namespace normlab::tool {

namespace {

constexpr const char* kCheckUsage =
    "usage: normlab check --op OP --rows M --cols N [options]\n"
    "  OP: rmsnorm, layernorm, add_rmsnorm, add_layernorm, rmsnorm_backward or\n"
    "      layernorm_backward\n"
    "  --dtype fp32|fp16|bf16    x, y and the residuals (default fp32)\n"
    "  --weight-dtype same|fp32  weight and bias in the input dtype (default) or in fp32\n"
    "  --row-stride S            elements between rows (S >= N; default N)\n"
    "  --misalign E              shift every activation's base by E elements, 0 to 63\n"
    "                            (default 0)\n"
    "  --no-weight               no weight (scale 1)\n"
    "  --bias                    a bias (LayerNorm ops)\n"
    "  --dresidual               backward: add a residual gradient into dx (fused add + norm)\n"
    "  --gemma                   scale by (1 + w)\n"
    "  --eps E                   (default 1e-5)\n"
    "  --in-place                y over x; for add + norm, the new residual over the old;\n"
    "                            backward: dx over dy\n"
    "  --distribution D          x (and the residual) drawn from normal, shifted or heavy\n"
    "                            (heavy-tailed: about 1% outliers); default normal\n"
    "  --mean X                  the distribution's mean (default 0)\n"
    "  --scale X                 its standard deviation, X >= 0 (default 1)\n"
    "  --seed K                  input seed (default 1)\n"
    "  --kernel NAME             run this registered kernel instead of the op's default\n"
    "  --dump DIR                write inputs, outputs and case.json into DIR\n"
    "  --json                    print the result as JSON\n"
    "  --help                    print this and exit\n"
    "A kernel that cannot take the case is refused by name (exit 2), before any GPU work.\n"
    "exit codes: 0 PASS, 1 FAIL, 2 bad usage or a refused case, 69 no CUDA GPU\n";

// The --distribution named @p text (random.hpp's parse_distribution), refused by the option's
// name.
Distribution distribution_named(const char* text) {
  try {
    return parse_distribution(text, "--distribution");
  } catch (const std::invalid_argument& error) {
    refuse_option("--distribution", std::string("names no distribution: ") + error.what());
  }
}

struct CheckOptions {
  Case problem;
  std::string kernel;  // empty: the op's default kernel
  std::string dump;    // empty: no dump
  bool json = false;
};

CheckOptions parse(int argc, char** argv, int first) {
  CheckOptions options;
  std::optional<Op> op;
  DType dtype = DType::f32;
  std::optional<std::int64_t> rows, cols, row_stride;
  bool fp32_parameters = false, no_weight = false, bias = false;
  Case& c = options.problem;
  CommandLine line(argc, argv, first);
  while (line.next()) {
    if (line.is("--op")) {
      op = parse_op(line.value(), "--op");
      if (*op == Op::copy) {
        refuse_option("--op",
                      "must be rmsnorm, layernorm, add_rmsnorm, add_layernorm, "
                      "rmsnorm_backward or layernorm_backward");
      }
    } else if (line.is("--dtype")) {
      dtype = parse_dtype(line.value(), "--dtype");
    } else if (line.is("--weight-dtype")) {
      const std::string text = line.value();
      if (text != "same" && text != "fp32")
        refuse_option("--weight-dtype", "must be same or fp32 (got '" + text + "')");
      fp32_parameters = text == "fp32";
    } else if (line.is("--rows")) {
      rows = line.integer(0);
    } else if (line.is("--cols")) {
      cols = line.integer(1);
    } else if (line.is("--row-stride")) {
      row_stride = line.integer(1);
    } else if (line.is("--misalign")) {
      c.misalign = line.integer(0, 63);
    } else if (line.is("--no-weight")) {
      no_weight = true;
    } else if (line.is("--bias")) {
      bias = true;
    } else if (line.is("--dresidual")) {
      c.residual_gradient = true;
    } else if (line.is("--gemma")) {
      c.weight_plus_one = true;
    } else if (line.is("--eps")) {
      c.eps = static_cast<float>(line.number(0.0));
      if (c.eps > std::numeric_limits<float>::max()) refuse_option("--eps", "must fit a float");
    } else if (line.is("--in-place")) {
      c.in_place = true;
    } else if (line.is("--distribution")) {
      c.input.distribution = distribution_named(line.value());
    } else if (line.is("--mean")) {
      c.input.mean = line.number();
    } else if (line.is("--scale")) {
      c.input.scale = line.number(0.0);
    } else if (line.is("--seed")) {
      c.input.seed = static_cast<std::uint64_t>(line.integer(0));
    } else if (line.is("--kernel")) {
      options.kernel = line.value();
    } else if (line.is("--dump")) {
      options.dump = line.value();
    } else if (line.is("--json")) {
      options.json = true;
    } else {
      line.refuse_unknown("normlab check");
    }
  }
  if (!op) refuse_option("--op", "is required");
  if (!rows) refuse_option("--rows", "is required");
  if (!cols) refuse_option("--cols", "is required");
  if (row_stride && *row_stride < *cols) {
    refuse_option("--row-stride", "must be >= --cols (got " + std::to_string(*row_stride) + " < " +
                                      std::to_string(*cols) + ")");
  }
  // Every byte offset of a tensor (and of its float64 reference) must fit 64 bits.
  const std::int64_t stride = row_stride.value_or(*cols);
  if (*rows > 0 && stride > std::numeric_limits<std::int64_t>::max() / 16 / *rows) {
    refuse_option("--rows", "times the row stride (" + std::to_string(*rows) + " x " +
                                std::to_string(stride) +
                                ") is more elements than can be addressed");
  }
  if (bias && !takes_bias(*op))
    refuse_option("--bias", "needs --op layernorm, add_layernorm or layernorm_backward");
  if (c.residual_gradient && !is_backward(*op))
    refuse_option("--dresidual", "needs --op rmsnorm_backward or layernorm_backward");
  if (c.weight_plus_one && no_weight)
    refuse_option("--gemma", "scales by (1 + w) and needs a weight");
  c.op = *op;
  c.shape = {.rows = *rows,
             .cols = *cols,
             .dtype = dtype,
             .weight_dtype = fp32_parameters ? DType::f32 : dtype,
             .weight = !no_weight,
             .bias = bias};
  c.pad = row_stride ? *row_stride - *cols : 0;
  return options;
}

// The kernel to run: --kernel NAME, or the op's default (default_for_op); refused by name when
// there is none. Whether it can run the case is asked separately (check_command).
const KernelEntry& kernel_to_run(const CheckOptions& options) {
  const Op op = options.problem.op;
  const KernelEntry* kernel =
      options.kernel.empty() ? default_kernel(op) : find_kernel(options.kernel);
  if (kernel == nullptr && options.kernel.empty())
    refuse_option("--op", std::string("has no default kernel for ") + name_of(op));
  if (kernel == nullptr)
    refuse_option("--kernel",
                  "names no registered kernel ('" + options.kernel + "'; see normlab list)");
  return *kernel;
}

void print_json(const KernelEntry& kernel, const CheckOptions& options, const CaseResult& result,
                double max_abs, double max_rel) {
  const Tolerance tolerance = tolerance_for(options.problem.shape.dtype);
  JsonWriter json(std::cout);
  json.begin_object()
      .member("result", result.passed() ? "PASS" : "FAIL")
      .member("kernel", kernel.name)
      .member("case", result.case_description)
      .key("tolerance")
      .begin_object()
      .member("abs", tolerance.abs)
      .member("rel", tolerance.rel)
      .end_object()
      .member("max_abs_error", max_abs)
      .member("max_rel_error", max_rel);
  if (!options.dump.empty()) json.member("dump", options.dump);
  json.key("outputs").begin_array();
  for (const CompareReport& r : result.reports) {
    json.begin_object()
        .member("name", r.what)
        .member("passed", r.passed())
        .member("checked", r.checked)
        .member("mismatches", r.mismatches)
        .member("non_finite", r.non_finite)
        .member("unwritten", r.unwritten)
        .member("guard_overwrites", r.guard_overwrites)
        .member("max_abs_error", r.max_abs_error)
        .member("max_rel_error", r.max_rel_error)
        .key("first")
        .begin_array();
    for (const Mismatch& m : r.first) {
      json.begin_object()
          .member("row", m.row)
          .member("col", m.col)
          .member("got", m.got)
          .member("want", m.want)
          .end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();
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
  if (asks_for_help(argc, argv, first)) {
    std::printf("%s", kCheckUsage);
    return 0;
  }
  // Bad options, then a kernel that cannot take the case: both refused before any GPU work.
  CheckOptions options;
  const KernelEntry* kernel = nullptr;
  try {
    options = parse(argc, argv, first);
    kernel = &kernel_to_run(options);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "normlab check: %s\n%s", error.what(), kCheckUsage);
    return 2;
  }
  if (const std::string refusal = kernel->refusal(options.problem); !refusal.empty()) {
    const std::string chosen_by =
        options.kernel.empty() ? "the default kernel for the op" : "option '--kernel'";
    std::fprintf(stderr, "normlab check: %s (%s) refuses %s: %s\n", kernel->name.c_str(),
                 chosen_by.c_str(), options.problem.describe().c_str(), refusal.c_str());
    return 2;
  }
  if (report_missing_gpu("normlab check")) return kNoGpuExitCode;
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
