// SPDX-License-Identifier: Apache-2.0
/// @file general_forward.hpp
/// @brief Chapter 07's type-erased entry point: the one launcher behind the registry entries
/// ch07_rmsnorm, ch07_layernorm, ch07_add_rmsnorm and ch07_add_layernorm (entries.cpp).
#pragma once

#include <cuda_runtime.h>

#include "normlab/kernel.hpp"

namespace normlab::kernels {

/// Runs @p call (op rmsnorm, layernorm, add_rmsnorm or add_layernorm) on @p stream through the
/// typed launcher of its op and dtypes (general.cuh): x and the outputs in call.dtype (fp32, fp16
/// or bf16), weight and bias in call.dtype or fp32, or any of them with fp32 x; a bias with
/// RMSNorm too; for add + norm, the residual stream in call.dtype or, with 16-bit x, in fp32
/// (NormCall::residual_dtype). Throws std::invalid_argument naming the
/// argument before anything is launched when an argument cannot work.
void forward(const NormCall& call, cudaStream_t stream);

}  // namespace normlab::kernels
