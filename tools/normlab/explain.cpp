// SPDX-License-Identifier: Apache-2.0
// normlab explain: the dispatcher's decision for one call, printed: the kernel, the rule and its
// reason, the launch, the scratch. Needs no GPU (sm_90 is assumed without one).
#include "explain.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "case_options.hpp"
#include "dispatcher.hpp"
#include "normlab/check.hpp"
#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/registry.hpp"
#include "tuned_table.hpp"
#include "usage_error.hpp"

namespace normlab::tool {

namespace {

constexpr int kAssumedComputeCapability = 90;

const std::string kExplainUsage =
    std::string(
        "usage: normlab explain --op OP --rows M --cols N [options]\n"
        "prints the kernel the dispatcher (normlab::plan) runs for the call, the rule that chose\n"
        "it and why, its launch configuration and the scratch it needs; needs no GPU\n") +
    kCaseOptionsUsage +
    "  --sm CC                   plan for compute capability CC (90 for sm_90) instead of\n"
    "                            this machine's GPU (sm_90 when there is none), by the rules\n"
    "  --gpu NAME                plan with the tuned table of the GPU called NAME (\"NVIDIA\n"
    "                            H200\"; default this machine's GPU's, if it has one)\n"
    "  --table FILE              plan with the tuned table in FILE\n"
    "  --rules                   plan by the decision table's rules alone, with no tuned table\n"
    "  --help                    print this and exit\n"
    "exit codes: 0 explained, 2 bad usage or a call no kernel takes\n";

// "rmsnorm bf16 4096 x 8192, fp32 parameters, row stride 8200, misalign 1, ..."
std::string describe_call(const Case& c) {
  const Shape& s = c.shape;
  std::string text = std::string(name_of(c.op)) + " " + name_of(s.dtype) + " " +
                     std::to_string(s.rows) + " x " + std::to_string(s.cols);
  if (s.weight_dtype != s.dtype)
    text += std::string(", ") + name_of(s.weight_dtype) + " parameters";
  if (dy_dtype_of(s) != s.dtype) text += std::string(", ") + name_of(dy_dtype_of(s)) + " dy";
  if (residual_dtype_of(s) != s.dtype)
    text += std::string(", ") + name_of(residual_dtype_of(s)) + " residual";
  if (!s.weight) text += ", no weight";
  if (s.bias) text += ", bias";
  if (c.pad != 0) text += ", row stride " + std::to_string(activation_stride(c));
  if (c.misalign != 0) text += ", misalign " + std::to_string(c.misalign);
  if (c.group_rows > 1) {
    text += ", x in groups of " + std::to_string(c.group_rows) + " rows " +
            std::to_string(group_stride(c)) + " apart";
  }
  if (c.weight_plus_one) text += ", (1 + w)";
  if (c.in_place) text += ", in place";
  if (c.residual_gradient) text += ", dresidual";
  return text;
}

// The scratch line: chapter 08's deterministic reduction sizes it by the GPU's SM count, which
// only a GPU can tell.
std::string scratch_line(const KernelEntry& kernel, const Shape& shape) {
  try {
    return std::to_string(dispatch::scratch_of(kernel, shape)) + " bytes";
  } catch (const CudaError&) {
    return "sized by the GPU's SM count; no GPU to ask";
  }
}

}  // namespace

TargetGpu current_gpu() {
  if (const std::string reason = gpu_unavailable_reason(); !reason.empty()) {
    return {kAssumedComputeCapability, "assumed: " + reason + "; --sm CC plans for another GPU",
            ""};
  }
  return {compute_capability(), device_name(), device_name()};
}

int explain_command(int argc, char** argv, int first, const TargetGpu& gpu) {
  if (asks_for_help(argc, argv, first)) {
    std::printf("%s", kExplainUsage.c_str());
    return 0;
  }
  Case c;
  TargetGpu target = gpu;
  // The tuned table: this GPU's unless --sm plans for another, --gpu names one or --table gives
  // one.
  std::string table_gpu = gpu.name;
  std::string table_file;
  bool rules_only = false;
  try {
    CaseOptions call;
    CommandLine line(argc, argv, first);
    while (line.next()) {
      if (call.take(line)) continue;
      if (line.is("--sm")) {
        target = {static_cast<int>(line.integer(10, 1000)), "given by --sm"};
        table_gpu.clear();
      } else if (line.is("--gpu")) {
        table_gpu = line.value();
      } else if (line.is("--table")) {
        table_file = line.value();
      } else if (line.is("--rules")) {
        rules_only = true;
      } else {
        refuse_unknown_option(line, "normlab explain");
      }
    }
    c = call.finish(c);
  } catch (const std::invalid_argument& error) {
    return usage_error("normlab explain", error.what());
  }
  dispatch::TunedTable given_table;
  const dispatch::TunedTable* table = nullptr;
  try {
    if (!rules_only && !table_file.empty()) {
      given_table = dispatch::read_tuned_table(table_file);
      table = &given_table;
    } else if (!rules_only && !table_gpu.empty()) {
      table = dispatch::tuned_table_for(table_gpu);
    }
  } catch (const std::runtime_error& error) {
    std::fprintf(stderr, "normlab explain: %s\n", error.what());
    return 2;
  }
  // A table `normlab tune --update` ranked candidates into, or a resumed run added points to,
  // also says when ("updated" and "added" lines, one a run, the latest last): the latest, and how
  // many.
  std::string updated;
  int updates = 0;
  if (table != nullptr) {
    for (const auto& [key, value] : table->header) {
      if (key != "updated" && key != "added") continue;
      updated = value.substr(0, value.find(": "));
      ++updates;
    }
  }
  if (updates > 1) updated += " (the last of " + std::to_string(updates) + " updates)";
  const std::string table_line =
      rules_only ? std::string("none (--rules): the decision table's rules")
      : table != nullptr
          ? table->name + " (" + table->device + ", tuned " + table->header_value("date") +
                (updated.empty() ? "" : ", updated " + updated) + ")"
          : "none for " + (table_gpu.empty() ? std::string("this GPU") : table_gpu) +
                ": the decision table's rules";
  Plan plan;
  try {
    plan = dispatch::decide(dispatch::facts_of(c, target.compute_capability), kernel_registry(),
                            table);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "normlab explain: %s\n", error.what());
    return 2;
  }
  std::printf("call:    %s\n", describe_call(c).c_str());
  std::printf("GPU:     sm_%d (%s)\n", target.compute_capability, target.description.c_str());
  std::printf("table:   %s\n", table_line.c_str());
  std::printf("kernel:  %s (chapter %02d)\n", plan.kernel->name.c_str(), plan.kernel->chapter);
  std::printf("why:     %s\n", plan.why.c_str());
  std::printf("launch:  %s\n", plan.launch.c_str());
  std::printf("scratch: %s\n", scratch_line(*plan.kernel, c.shape).c_str());
  return 0;
}

}  // namespace normlab::tool
