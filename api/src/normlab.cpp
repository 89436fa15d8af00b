// SPDX-License-Identifier: Apache-2.0
// normlab.hpp: plan() over the registry, run() = plan() + the chosen kernel's launch.
#include "normlab/normlab.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "dispatcher.hpp"
#include "normlab/check.hpp"
#include "registry.hpp"

namespace normlab {

namespace {

constexpr std::size_t kScratchAlignment = 256;

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

}  // namespace

Plan plan(const NormCall& call) {
  return plan(call, 0);  // compute capability 0: the current device's, asked when it matters
}

Plan plan(const NormCall& call, int compute_capability) {
  check_argument(compute_capability >= 0, "normlab::plan", "compute_capability",
                 "must be >= 0 (90 for sm_90; 0 for the current device)");
  return dispatch::plan(call, compute_capability, kernel_registry());
}

void run(const NormCall& call, cudaStream_t stream) {
  run(call, plan(call), stream);
}

void run(const NormCall& call, const Plan& chosen, cudaStream_t stream) {
  check_argument(chosen.kernel != nullptr, "normlab::run", "planned", "holds no kernel");
  check_scratch(call, chosen);
  chosen.kernel->launch(call, stream);
  if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess) {
    throw std::runtime_error("normlab::run: " + chosen.kernel->name + " failed to launch: " +
                             cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  }
}

}  // namespace normlab
