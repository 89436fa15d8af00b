// SPDX-License-Identifier: Apache-2.0
/// @file dispatcher.hpp
/// @brief The dispatcher's parts behind normlab.hpp, for normlab's own tools and tests (not
/// installed): what it reads of a call, its decision table over a given list of kernels, and
/// the same decision for a harness Case.
#pragma once

#include <memory>
#include <span>

#include "configs.hpp"
#include "normlab/kernel.hpp"
#include "normlab/normlab.hpp"
#include "normlab/runner.hpp"

namespace normlab::dispatch {

/// Everything the decision table reads of a call.
struct Facts {
  Requirements needs;  ///< what KernelEntry::refusal judges
  kernels::configured::Choice
      configured_choice;                 ///< forward ops: the configured launcher's own choice
  kernels::configured::Problem problem;  ///< forward ops: what that choice was made from
  /// Every parameter given (weight, bias) starts on a 16-byte boundary: what a kernel compiled
  /// for the 16-byte grid also needs, beyond the activations' alignment its capabilities judge.
  bool parameters_aligned = true;
};

/// Throws std::invalid_argument naming the argument unless @p call is well formed: a norm op,
/// known dtypes with parameters in the activations' dtype or fp32, rows >= 0, cols >= 1, eps
/// >= 0 and finite (0 as PyTorch takes it: a constant row then has an infinite rstd), every tensor
/// its op needs non-null (when rows > 0), strides >= cols, pointers aligned to their element,
/// outputs over inputs only as the same rows.
void validate(const NormCall& call);
/// validate()'s check of eps alone, for the tools that read eps before there is a call (normlab
/// check and explain): throws std::invalid_argument naming 'eps' unless it is >= 0 and finite.
void validate_eps(float eps);

/// The facts of a validated @p call on a GPU of @p compute_capability.
Facts facts_of(const NormCall& call, int compute_capability);
/// The facts of the call the Workspace makes of @p c (requirements_of(c)); @p
/// compute_capability 0 leaves it to the current device.
Facts facts_of(const Case& c, int compute_capability);

struct TunedTable;  // tuned_table.hpp

/// The decision for a call. With a tuned @p table: the fastest candidate (candidates.hpp) that
/// takes the call at the nearest grid point of its op (tuned_table.hpp's nearest_pick).
/// Otherwise, and where no near grid point has one, the stated default: the decision table
/// (dispatcher.cpp) over @p kernels. The kernel, why and how it launches, scratch_bytes left 0
/// (scratch_of may need the GPU). Throws std::invalid_argument listing every candidate's refusal
/// when none of them takes the call.
Plan decide(const Facts& facts, std::span<const KernelEntry> kernels,
            const TunedTable* table = nullptr);

/// The scratch @p kernel needs for @p shape; chapter 08's deterministic reduction sizes it by
/// the current GPU's SM count (a CudaError without a GPU).
std::size_t scratch_of(const KernelEntry& kernel, const Shape& shape);

/// plan(call, compute_capability) over @p kernels instead of the registry, with the tuned
/// @p table when one is given.
Plan plan(const NormCall& call, int compute_capability, std::span<const KernelEntry> kernels,
          const TunedTable* table = nullptr);

/// normlab::plan(@p call) on the current device: validated and planned once per layout
/// (plan_cache.hpp's PlanKey, which holds everything validate() reads) and then kept; the same
/// object for every call like it.
std::shared_ptr<const Plan> planned(const NormCall& call);
/// planned() for a launch: between the checks and the plan, a std::runtime_error saying so when
/// no usable GPU or driver is present.
std::shared_ptr<const Plan> planned_for_launch(const NormCall& call);
/// Launches @p call by @p kept, the plan planned_for_launch(@p call) returned for it (so its
/// prepared launch, sized for the call's own layout, may skip the entry's checks); the scratch
/// checked as run() checks it.
void run_kept(const NormCall& call, const Plan& kept, cudaStream_t stream);

/// The plan for the case @p c over the registry and the tuned @p table (normlab check and
/// explain).
Plan plan(const Case& c, int compute_capability, const TunedTable* table = nullptr);

/// The tuned table of the GPU with ordinal @p device (tuned_table_for its name), or null where
/// there is none or no such GPU.
const TunedTable* tuned_table_of_device(int device);
/// The current device's ordinal, or -1 where the runtime has none (the error is cleared, so that
/// the next launch's check does not see it); planning needs no GPU.
int current_device();
/// tuned_table_of_device(current_device()): null without a GPU.
const TunedTable* tuned_table_of_current_device();

}  // namespace normlab::dispatch
