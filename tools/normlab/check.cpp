// SPDX-License-Identifier: Apache-2.0
// normlab check: one kernel (the dispatcher's choice by default) on one case, every output compared
// with the float64 reference; optionally the inputs and outputs dumped for a side-by-side run.
#include "check.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

#include "candidates.hpp"
#include "case_options.hpp"
#include "dispatcher.hpp"
#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/json.hpp"
#include "normlab/kernel.hpp"
#include "normlab/random.hpp"
#include "normlab/registry.hpp"
#include "normlab/runner.hpp"
#include "usage_error.hpp"

namespace normlab::tool {

namespace {

const std::string kCheckUsage =
    std::string("usage: normlab check --op OP --rows M --cols N [options]\n") + kCaseOptionsUsage +
    "  --distribution D          x (and the residual) drawn from normal, shifted or heavy\n"
    "                            (heavy-tailed: about 1% outliers); default normal\n"
    "  --mean X                  the distribution's mean (default 0)\n"
    "  --scale X                 its standard deviation, X >= 0 (default 1)\n"
    "  --seed K                  input seed (default 1)\n"
    "  --kernel NAME             run this registered kernel instead of the dispatcher's choice\n"
    "                            (normlab explain says what it chooses and why)\n"
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
  std::string kernel;  // empty: the dispatcher's choice
  std::string dump;    // empty: no dump
  bool json = false;
};

CheckOptions parse(int argc, char** argv, int first) {
  CheckOptions options;
  CaseOptions call;
  Case inputs;  // the input distribution and seed; the call's options come from `call`
  CommandLine line(argc, argv, first);
  while (line.next()) {
    if (call.take(line)) continue;
    if (line.is("--distribution")) {
      inputs.input.distribution = distribution_named(line.value());
    } else if (line.is("--mean")) {
      inputs.input.mean = line.number();
    } else if (line.is("--scale")) {
      inputs.input.scale = line.number(0.0);
    } else if (line.is("--seed")) {
      inputs.input.seed = static_cast<std::uint64_t>(line.integer(0));
    } else if (line.is("--kernel")) {
      options.kernel = line.value();
    } else if (line.is("--dump")) {
      options.dump = line.value();
    } else if (line.is("--json")) {
      options.json = true;
    } else {
      refuse_unknown_option(line, "normlab check");
    }
  }
  options.problem = call.finish(inputs);
  return options;
}

// The kernel to run: --kernel NAME, refused by name when it names none; without it, the
// dispatcher's choice with this GPU's tuned table, as normlab::run makes it (why it chose is
// returned in @p why), which refuses a case no kernel
// takes. Whether a named kernel can run the case is asked separately (check_command).
const KernelEntry& kernel_to_run(const CheckOptions& options, std::string& why) {
  if (options.kernel.empty()) {
    const Plan plan = dispatch::decide(dispatch::facts_of(options.problem, 0), kernel_registry(),
                                       dispatch::tuned_table_of_current_device());
    why = plan.why;
    return *plan.kernel;
  }
  const KernelEntry* kernel = find_kernel(options.kernel);
  if (const dispatch::Candidate* candidate = dispatch::candidate_named(options.kernel);
      kernel == nullptr && candidate != nullptr) {
    kernel = candidate->kernel;  // a configuration the tuned chooser may pick
  }
  if (kernel == nullptr)
    refuse_option("--kernel",
                  "names no registered kernel ('" + options.kernel + "'; see normlab list)");
  return *kernel;
}

void print_json(const KernelEntry& kernel, const std::string& why, const CheckOptions& options,
                const CaseResult& result, double max_abs, double max_rel) {
  const Tolerance tolerance = tolerance_for(options.problem.shape.dtype);
  JsonWriter json(std::cout);
  json.begin_object()
      .member("result", result.passed() ? "PASS" : "FAIL")
      .member("kernel", kernel.name)
      .member("chosen_by", why.empty() ? "--kernel" : "dispatcher");
  if (!why.empty()) json.member("why", why);
  json.member("case", result.case_description)
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

void print_text(const KernelEntry& kernel, const std::string& why, const CaseResult& result,
                Tolerance tolerance, double max_abs, double max_rel) {
  std::printf("%s: %s on %s\n", result.passed() ? "PASS" : "FAIL", kernel.name.c_str(),
              result.case_description.c_str());
  if (!why.empty()) std::printf("chosen by the dispatcher: %s\n", why.c_str());
  std::printf("tolerance: |got - want| <= %g + %g * |want|\n", tolerance.abs, tolerance.rel);
  std::printf("max abs error %.3g, max rel error %.3g\n", max_abs, max_rel);
  for (const CompareReport& r : result.reports)
    std::printf("  %s\n", r.describe().c_str());
}

}  // namespace

int check_command(int argc, char** argv, int first) {
  if (asks_for_help(argc, argv, first)) {
    std::printf("%s", kCheckUsage.c_str());
    return 0;
  }
  // Bad options, then a kernel that cannot take the case: both refused before any GPU work.
  CheckOptions options;
  try {
    options = parse(argc, argv, first);
  } catch (const std::invalid_argument& error) {
    return usage_error("normlab check", error.what());
  }
  const KernelEntry* kernel = nullptr;
  std::string why;  // empty: chosen by --kernel
  try {
    kernel = &kernel_to_run(options, why);
  } catch (const std::invalid_argument& error) {  // no such kernel; no kernel takes the case
    std::fprintf(stderr, "normlab check: %s\n", error.what());
    return 2;
  }
  if (const std::string refusal = kernel->refusal(options.problem); !refusal.empty()) {
    std::fprintf(stderr, "normlab check: %s (option '--kernel') refuses %s: %s\n",
                 kernel->name.c_str(), options.problem.describe().c_str(), refusal.c_str());
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
    print_json(*kernel, why, options, result, max_abs, max_rel);
  } else {
    print_text(*kernel, why, result, tolerance_for(options.problem.shape.dtype), max_abs, max_rel);
  }
  return result.passed() ? 0 : 1;
}

}  // namespace normlab::tool
