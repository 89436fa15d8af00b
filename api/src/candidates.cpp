// SPDX-License-Identifier: Apache-2.0
// The candidates of the tuned chooser (candidates.hpp): chapter 07's launcher, chapter 09's
// configurations and chapter 10's paths and configurations for each forward op; chapter 08's
// deterministic kernel and chapter 10's cluster configurations for each backward op.
#include "candidates.hpp"

#include <algorithm>
#include <vector>

#include "configs.hpp"
#include "configured_entries.hpp"
#include "normlab/registry.hpp"

namespace normlab::dispatch {

namespace configured = kernels::configured;

namespace {

struct Built {
  std::vector<KernelEntry> config_entries;  // owned here: not in the registry
  std::vector<Candidate> all;
};

// Chapter 10's families by the suffix of their entries' names (entries.cpp there), before the
// configuration's name after '@' where the family has several.
constexpr struct {
  const char* suffix;
  const char* family;
} kChapter10Families[] = {{"_cluster", "cluster"},
                          {"_cluster_row", "cluster_row"},
                          {"_whole_gpu", "whole_gpu"},
                          {"_split", "split"}};

// Chapter 09's configurations by their kind.
const char* family_of(configured::Kind kind) {
  switch (kind) {
    case configured::Kind::narrow:
      return "lanes";
    case configured::Kind::slim:
      return "slim";
    case configured::Kind::staged:
      return "staged";
    default:
      return "block";
  }
}

const Built& built() {
  static const Built b = [] {
    Built made;
    made.config_entries = configured::config_entries();
    for (const KernelEntry& kernel : kernel_registry()) {
      if (kernel.chapter == 8) {
        // Chapter 08's deterministic kernel: the atomic one's gradients change bits from run to
        // run, which no plan may do.
        if (kernel.default_for_op) {
          made.all.push_back({.family = "persistent", .config = "default", .kernel = &kernel});
        }
        continue;
      }
      if (kernel.chapter == 7) {
        made.all.push_back({.family = "general", .config = "default", .kernel = &kernel});
        continue;
      }
      if (kernel.chapter != 10) continue;
      const std::size_t at = kernel.name.find('@');
      const std::string_view name = std::string_view(kernel.name).substr(0, at);
      const std::string config = at == std::string::npos ? "default" : kernel.name.substr(at + 1);
      for (const auto& family : kChapter10Families) {
        if (name.ends_with(family.suffix)) {
          made.all.push_back({.family = family.family, .config = config, .kernel = &kernel});
        }
      }
    }
    for (const KernelEntry& kernel : made.config_entries) {
      const std::string config = kernel.name.substr(kernel.name.find('@') + 1);
      const int index = configured::config_index(config);
      made.all.push_back({.family = family_of(configured::kConfigs[index].kind),
                          .config = config,
                          .kernel = &kernel,
                          .config_index = index});
    }
    for (Candidate& candidate : made.all)
      candidate.key = std::string(candidate.family) + "/" + candidate.config;
    return made;
  }();
  return b;
}

}  // namespace

std::span<const Candidate> candidates() {
  return built().all;
}

const Candidate* candidate_keyed(Op op, std::string_view key) {
  const std::vector<Candidate>& all = built().all;
  const auto found = std::find_if(all.begin(), all.end(), [&](const Candidate& c) {
    return c.kernel->op == op && c.key == key;
  });
  return found == all.end() ? nullptr : &*found;
}

const Candidate* candidate_named(std::string_view kernel_name) {
  const std::vector<Candidate>& all = built().all;
  const auto found = std::find_if(
      all.begin(), all.end(), [&](const Candidate& c) { return c.kernel->name == kernel_name; });
  return found == all.end() ? nullptr : &*found;
}

std::string refusal_of(const Candidate& candidate, const Facts& facts) {
  if (candidate.kernel->op != facts.needs.op) {
    return std::string("a kernel of ") + name_of(candidate.kernel->op);
  }
  std::string refusal = candidate.kernel->refusal(facts.needs);
  // Capabilities judge the activations' alignment; a kernel compiled for the 16-byte grid reads
  // the parameters in whole chunks too, and its launcher refuses them off it.
  if (refusal.empty() && candidate.kernel->can.alignment_bytes >= kernels::kChunkBytes &&
      !facts.parameters_aligned)
    refusal = "needs the weight and bias aligned to 16 bytes";
  if (refusal.empty() && candidate.config_index >= 0) {
    const configured::Choice choice = configured::configure(candidate.config_index, facts.problem);
    if (!choice.why.empty()) refusal = choice.why;
  }
  return refusal;
}

}  // namespace normlab::dispatch
