// SPDX-License-Identifier: Apache-2.0
// normlab.hpp: plan() over the registry, run() = plan() + the chosen kernel's launch. A call on
// the current device is planned once per layout: later calls like it take the kept plan.
#include "normlab/normlab.hpp"

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

#include "candidates.hpp"
#include "configured_entries.hpp"
#include "dispatcher.hpp"
#include "normlab/check.hpp"
#include "normlab/registry.hpp"
#include "plan_cache.hpp"

namespace normlab {

namespace {

constexpr std::size_t kScratchAlignment = 256;
// Plans kept: a model's norms come in a handful of layouts, a serving process's shapes in a few
// hundred batch sizes.
constexpr std::size_t kPlansKept = 512;

dispatch::PlanCache& kept_plans() {
  static dispatch::PlanCache plans(kPlansKept);
  return plans;
}

// Refuses a launch where no GPU can run it, saying so, once per process: without a driver or a
// device the first launch would fail with a message about the launch, not the machine.
void require_gpu() {
  static const std::string missing = [] {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count > 0) return std::string();
    cudaGetLastError();
    return std::string("normlab::run: no usable CUDA GPU (") +
           (status == cudaSuccess ? "the driver sees none" : cudaGetErrorString(status)) + ")";
  }();
  if (!missing.empty()) throw std::runtime_error(missing);
}

// The plan for @p call on the current device, and for a chapter 09 configuration its launch
// sized once (Plan::prepared). The checks run when a layout is planned, before anything else
// (and, for a launch, the GPU's presence next): they read only what PlanKey holds (dtypes,
// shape, eps, strides, each tensor's presence and alignment, which outputs lie over their
// inputs), and a refused call is never kept, so a call whose key finds a plan has passed them.
std::shared_ptr<const Plan> kept_plan(const NormCall& call, bool for_launch) {
  const int device = dispatch::current_device();
  return kept_plans().find_or_plan(call, device, [device, for_launch](const NormCall& c) {
    dispatch::validate(c);
    if (for_launch) require_gpu();  // before planning, which may ask the GPU (its SMs)
    Plan made = dispatch::plan(c, 0, kernel_registry(), dispatch::tuned_table_of_device(device));
    const KernelEntry& launched = made.launched != nullptr ? *made.launched : *made.kernel;
    const dispatch::Candidate* candidate = dispatch::candidate_named(launched.name);
    if (candidate != nullptr && candidate->config_index >= 0) {
      made.prepared = kernels::configured::configured_launcher(c, candidate->config_index);
    }
    return made;
  });
}

void check_scratch(const NormCall& call, const Plan& plan) {
  if (plan.scratch_bytes == 0) return;
  const std::string needed = " (" + plan.kernel->name + " needs " +
                             std::to_string(plan.scratch_bytes) + " bytes for this call)";
  check_argument(call.scratch != nullptr, "normlab::run", "scratch", "is null" + needed);
  check_argument(call.scratch_bytes >= plan.scratch_bytes, "normlab::run", "scratch_bytes",
                 "is " + std::to_string(call.scratch_bytes) + needed);
  check_argument(reinterpret_cast<std::uintptr_t>(call.scratch) % kScratchAlignment == 0,
                 "normlab::run", "scratch", "must be 256-byte aligned");
}

// Launches @p call by @p launcher, @p chosen's entry or its prepared launch, after checking the
// scratch and the GPU; a launch error is thrown naming the entry.
void launch(const NormCall& call, const Plan& chosen, const Launcher& launcher,
            cudaStream_t stream) {
  check_scratch(call, chosen);
  require_gpu();
  launcher(call, stream);
  if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess) {
    const KernelEntry& launched = chosen.launched != nullptr ? *chosen.launched : *chosen.kernel;
    throw std::runtime_error("normlab::run: " + launched.name + " failed to launch: " +
                             cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  }
}

}  // namespace

namespace dispatch {

std::shared_ptr<const Plan> planned(const NormCall& call) {
  return kept_plan(call, false);
}

std::shared_ptr<const Plan> planned_for_launch(const NormCall& call) {
  return kept_plan(call, true);
}

}  // namespace dispatch

Plan plan(const NormCall& call) {
  return *dispatch::planned(call);
}

Plan plan(const NormCall& call, int compute_capability) {
  check_argument(compute_capability >= 0, "normlab::plan", "compute_capability",
                 "must be >= 0 (90 for sm_90; 0 for the current device)");
  if (compute_capability == 0) return plan(call);
  return dispatch::plan(call, compute_capability, kernel_registry());
}

void run(const NormCall& call, cudaStream_t stream) {
  dispatch::run_kept(call, *dispatch::planned_for_launch(call), stream);
}

void run(const NormCall& call, const Plan& chosen, cudaStream_t stream) {
  check_argument(chosen.kernel != nullptr, "normlab::run", "planned", "holds no kernel");
  launch(call, chosen, chosen.launched != nullptr ? chosen.launched->launch : chosen.kernel->launch,
         stream);
}

namespace dispatch {

void run_kept(const NormCall& call, const Plan& kept, cudaStream_t stream) {
  if (kept.prepared) return launch(call, kept, kept.prepared, stream);
  run(call, kept, stream);
}

}  // namespace dispatch

}  // namespace normlab
