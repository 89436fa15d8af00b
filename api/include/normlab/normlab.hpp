// SPDX-License-Identifier: Apache-2.0
/// @file normlab.hpp
/// @brief normlab's public interface: every op, run by the kernel the dispatcher picks for the
/// call's shape, dtypes, layout and GPU. Link `normlab::normlab` (after `cmake --install`,
/// `find_package(normlab)`), include this header, fill a NormCall and call run().
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "normlab/kernel.hpp"

namespace normlab {

/// What run() would do with a call: the kernel, why the dispatcher chose it, and the scratch it
/// needs (NormCall::scratch must then point at that many bytes, 256-byte aligned).
struct Plan {
  const KernelEntry* kernel = nullptr;
  std::string why;
  std::size_t scratch_bytes = 0;
  /// How the kernel will be launched, in words: chapter 09's configuration, threads a block and
  /// blocks when it runs chapter 09's table; otherwise the kernel's summary.
  std::string launch;
  /// The entry run() launches: where `kernel` chooses among configurations at every launch
  /// (chapter 09's dispatcher), the one it chooses for this call, chosen here once; else `kernel`
  /// (null: `kernel`).
  const KernelEntry* launched = nullptr;
  /// The launch of `launched` sized for this plan's layout once, where the entry would check
  /// the call and size it again at every launch (chapter 09's configurations); empty for the
  /// entry's own launch. Only run(call, stream) uses it, with the plan it keeps for the call's
  /// own layout; run(call, plan, stream) launches through the entry, which checks the call.
  Launcher prepared;
};

/// The dispatcher's decision for @p call on the current device: the fastest kernel that takes the
/// call at the nearest point of its op in the GPU's tuned table (`normlab tune` writes one;
/// tables of the GPUs normlab was tuned on are compiled in), else, with no table or no near
/// point, the decision table's rules. A call is planned once per
/// layout: a later call with the same op, shape, dtypes, strides, eps, device, tensors given and
/// their alignment takes the kept plan (the checks below still run on every call). Throws
/// std::invalid_argument
/// naming the argument when the call is malformed (a null tensor, a stride below cols, a
/// misaligned pointer, eps negative or not finite, ...) or when no kernel can run it (the message
/// then says what each candidate refused). Fields the op does not read are ignored. An output may
/// lie exactly over its input (y over x; residual_out over residual; dx over dy) with the same
/// stride; other overlaps between tensors are not detected.
Plan plan(const NormCall& call);

/// plan() for a GPU of compute capability @p compute_capability (90 for sm_90; 0 for the
/// current device's, asked only of a kernel that declares a minimum), by the decision table's
/// rules alone (a tuned table belongs to one GPU, not to a compute capability). Pointers are read
/// as addresses, never dereferenced, and no GPU is needed, except for a scratch sized by the GPU
/// (chapter 08's deterministic backward: by its SM count).
Plan plan(const NormCall& call, int compute_capability);

/// Checks @p call, plans it (or takes its layout's kept plan, as plan()) and launches the chosen
/// kernel on @p stream. Nothing is launched when it throws (std::invalid_argument as plan(), and
/// when the scratch is missing or short; std::runtime_error saying so when no usable GPU or
/// driver is present). Launch errors are thrown as std::runtime_error.
void run(const NormCall& call, cudaStream_t stream = nullptr);

/// run() with a plan already made by plan(@p call) for this very call (its op, shape, dtypes,
/// pointers and strides), so a caller that asked for the plan, say to size the scratch, does
/// not pay for a second one. The scratch is checked as run() checks it; nothing is launched when
/// it throws.
void run(const NormCall& call, const Plan& planned, cudaStream_t stream);

}  // namespace normlab
