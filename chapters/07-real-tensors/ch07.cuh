/// @file ch07.cuh
/// @brief Chapter 07: real tensors. RMSNorm, LayerNorm and their fused add + norm forms for
/// fp32, fp16 and bf16 tensors of any shape, stride and alignment, statistics in fp32.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab {
struct NormCall;  // normlab/kernel.hpp
}  // namespace normlab

namespace normlab::ch07 {

/// Runs @p call (op rmsnorm, layernorm, add_rmsnorm or add_layernorm) on @p stream.
///
/// x, residual, y and residual_out are fp32, fp16 or bf16 (call.dtype), each with its own row
/// stride and any element-aligned base; weight and bias are in call.dtype or fp32 and may be
/// null. Statistics are accumulated in fp32. The result is computed in fp32 and rounded to
/// call.dtype once, when it is stored; for add + norm, h = x + r is rounded to call.dtype when
/// it is stored and the norm is taken of that rounded h. y may be x, and residual_out may be
/// residual (in place). mean and rstd are written when not null. Throws
/// std::invalid_argument naming the argument before anything is launched when an argument
/// cannot work; rows = 0 launches nothing.
void forward(const NormCall& call, cudaStream_t stream);

}  // namespace normlab::ch07
