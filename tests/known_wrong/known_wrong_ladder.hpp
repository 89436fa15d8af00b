// SPDX-License-Identifier: Apache-2.0
// Known-wrong RMSNorm kernels: each is a ladder kernel with one classic mistake. They are not
// in the registry; test_known_wrong_ladder.cpp checks that grading rejects every one of them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "normlab/kernel.hpp"

namespace normlab::known_wrong {

/// y = x * w / (sqrt(mean(x^2)) + eps): eps added outside the square root.
void rmsnorm_eps_outside_sqrt(const NormCall& call, cudaStream_t stream);

/// y = x * w / sqrt((sum(x^2) + eps) / cols): eps added to the sum instead of the mean.
void rmsnorm_eps_on_sum(const NormCall& call, cudaStream_t stream);

/// Chapter 02's shared-memory tree with its __syncthreads() removed (256 threads per row).
void rmsnorm_tree_without_barriers(const NormCall& call, cudaStream_t stream);

/// Chapter 04's register-resident float4 kernel without its scalar tail: the cols % 4
/// elements after the last whole float4 are neither summed nor written.
void rmsnorm_float4_without_tail(const NormCall& call, cudaStream_t stream);

}  // namespace normlab::known_wrong
