// SPDX-License-Identifier: Apache-2.0
/// @file norm_cases.hpp
/// @brief What the chapter tests share: kernels looked up by name, grading with a printed
/// scorecard, the parameter variants (chapters 09 and 10), and (chapters 05 and 06) the padded,
/// misaligned and in-place cases.
#pragma once

#include "normlab_catch.hpp"

#include <cstdint>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "grading.hpp"
#include "normlab/kernel.hpp"
#include "normlab/registry.hpp"
#include "normlab/runner.hpp"

namespace normlab::norm_cases {

/// The registered kernel called @p name.
inline const KernelEntry& registered(const char* name) {
  const KernelEntry* kernel = find_kernel(name);
  if (kernel == nullptr)
    throw std::logic_error(std::string("no kernel ") + name + " in the registry");
  return *kernel;
}

/// Grades @p kernel on @p cases, prints the scorecard, and checks that every case passed
/// (naming the failed cases).
inline void require_all_pass(const KernelEntry& kernel, const std::vector<Case>& cases) {
  const grading::Scorecard card = grading::grade(kernel, cases);
  card.print(std::cout);
  INFO(card.failed_cases());
  CHECK(card.all_passed());
}

/// A variant of a case: its name, and what it sets (false where it does not apply to the case's
/// op).
struct CaseVariant {
  const char* name;
  std::function<bool(Case&)> apply;
};

/// The parameter and output variants every forward kernel of chapters 09 and 10 must take:
/// (1 + w), no parameters, a bias alone (LayerNorm), the statistics written.
inline std::vector<CaseVariant> parameter_variants() {
  return {
      {"(1 + w)", [](Case& c) { return c.weight_plus_one = true, true; }},
      {"no weight, no bias",
       [](Case& c) { return c.shape.weight = false, c.shape.bias = false, true; }},
      {"bias without weight",
       [](Case& c) { return c.shape.weight = false, c.shape.bias = true, is_layernorm(c.op); }},
      {"statistics", [](Case& c) { return c.statistics = true, true; }},
  };
}

/// 19 rows of @p op, each width with pads 1, 3 and 8, aligned and misaligned by one element,
/// out of place and in place. Pad 3 on cols % 4 == 1 makes strides multiples of 4 (float4 packs
/// with a tail); pad 1 and a misaligned base make the launchers fall back to float packs.
inline std::vector<Case> padded_misaligned_cases(Op op) {
  std::vector<Case> cases;
  for (std::int64_t cols : {1, 33, 1025, 4097, 16381}) {
    for (std::int64_t pad : {1, 3, 8}) {
      for (std::int64_t misalign : {0, 1}) {
        for (bool in_place : {false, true}) {
          Case c = default_case(op, 19, cols);
          c.pad = pad;
          c.misalign = misalign;
          c.in_place = in_place;
          c.input.seed = static_cast<std::uint64_t>(cols + pad * 10 + misalign);
          cases.push_back(c);
        }
      }
    }
  }
  return cases;
}

}  // namespace normlab::norm_cases
