// SPDX-License-Identifier: Apache-2.0
// The general launcher (taught in chapter 07): a row a block sized to the row, real tensors.
//
// Chapters 04 to 06 normalised neat fp32 blocks: 16-byte aligned rows, a width that splits
// into whole float4s, one stride for everything. Models hand a norm bf16 or fp16 activations
// with fp32 weights, rows of 5000 elements, views with their own row strides, slices whose
// base is not 16-byte aligned, tensors of more than 2^31 elements, and ask for the result in
// place. This launcher keeps the fast path (16-byte vectors, the row in registers, statistics
// in fp32) and makes each of those cases correct:
//   - a vector is always 16 bytes, 4 floats or 8 halves, converted to fp32 as it is loaded;
//   - a row is cut into chunks on the 16-byte boundaries of memory, not of the row, so a
//     misaligned row starts with a partial chunk moved element by element and the rest moves
//     as whole vectors; a tensor whose row is misaligned unlike x's moves element by element;
//   - every offset is int64;
//   - every load of a row happens before the block's reduction and every store after it, so
//     y may be x and the new residual may overwrite the old one.
// The device code is in row_io.cuh (chunks and peeling), row_norm.cuh (statistics,
// normalisation, the kernels) and general_launch.cuh (which kernel and block); this file holds
// the typed launchers and their argument checks.
#include "general.cuh"

#include "general_launch.cuh"
#include "normlab/check.hpp"
#include "validate_tensors.hpp"

namespace normlab::kernels {

namespace {

// Validates, then launches with the residual tensors cleared unless the op adds. A bias is
// added whenever it is given, RMSNorm's too (y = x * rstd * w + b).
template <bool kCentre, bool kAdd, typename T, typename P, typename R>
void run(const char* fn, const Tensors<T, P, R>& t, cudaStream_t stream) {
  validate(fn, t, kAdd);
  if (t.rows == 0) return;
  Tensors<T, P, R> used = t;
  if (!kAdd) used.residual = used.residual_out = nullptr;
  launch<T, P, kCentre, kAdd>(used, stream);
}

}  // namespace

template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, cudaStream_t stream) {
  run<false, false>("kernels::rmsnorm", t, stream);
}

template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, cudaStream_t stream) {
  run<true, false>("kernels::layernorm", t, stream);
}

template <typename T, typename P, typename R>
void add_rmsnorm(const Tensors<T, P, R>& t, cudaStream_t stream) {
  run<false, true>("kernels::add_rmsnorm", t, stream);
}

template <typename T, typename P, typename R>
void add_layernorm(const Tensors<T, P, R>& t, cudaStream_t stream) {
  run<true, true>("kernels::add_layernorm", t, stream);
}

// The dtype pairings the launcher supports: activations in T, parameters in T or fp32; and fp32
// activations with fp16 or bf16 parameters (only this launcher among the forward families).
template void rmsnorm(const Tensors<float, float>&, cudaStream_t);
template void rmsnorm(const Tensors<__half, __half>&, cudaStream_t);
template void rmsnorm(const Tensors<__half, float>&, cudaStream_t);
template void rmsnorm(const Tensors<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t);
template void rmsnorm(const Tensors<__nv_bfloat16, float>&, cudaStream_t);
template void layernorm(const Tensors<float, float>&, cudaStream_t);
template void layernorm(const Tensors<__half, __half>&, cudaStream_t);
template void layernorm(const Tensors<__half, float>&, cudaStream_t);
template void layernorm(const Tensors<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t);
template void layernorm(const Tensors<__nv_bfloat16, float>&, cudaStream_t);
template void add_rmsnorm(const Tensors<float, float>&, cudaStream_t);
template void add_rmsnorm(const Tensors<__half, __half>&, cudaStream_t);
template void add_rmsnorm(const Tensors<__half, float>&, cudaStream_t);
template void add_rmsnorm(const Tensors<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t);
template void add_rmsnorm(const Tensors<__nv_bfloat16, float>&, cudaStream_t);
template void add_layernorm(const Tensors<float, float>&, cudaStream_t);
template void add_layernorm(const Tensors<__half, __half>&, cudaStream_t);
template void add_layernorm(const Tensors<__half, float>&, cudaStream_t);
template void add_layernorm(const Tensors<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t);
template void add_layernorm(const Tensors<__nv_bfloat16, float>&, cudaStream_t);
#define NORMLAB_NARROW_PARAMETERS(P)                                 \
  template void rmsnorm(const Tensors<float, P>&, cudaStream_t);     \
  template void layernorm(const Tensors<float, P>&, cudaStream_t);   \
  template void add_rmsnorm(const Tensors<float, P>&, cudaStream_t); \
  template void add_layernorm(const Tensors<float, P>&, cudaStream_t);
NORMLAB_NARROW_PARAMETERS(__half)
NORMLAB_NARROW_PARAMETERS(__nv_bfloat16)
#undef NORMLAB_NARROW_PARAMETERS
// The fused adds with the residual stream in fp32 and 16-bit x, parameters in x's dtype or fp32.
#define NORMLAB_FP32_RESIDUAL(T, P)                                     \
  template void add_rmsnorm(const Tensors<T, P, float>&, cudaStream_t); \
  template void add_layernorm(const Tensors<T, P, float>&, cudaStream_t);
NORMLAB_FP32_RESIDUAL(__half, __half)
NORMLAB_FP32_RESIDUAL(__half, float)
NORMLAB_FP32_RESIDUAL(__nv_bfloat16, __nv_bfloat16)
NORMLAB_FP32_RESIDUAL(__nv_bfloat16, float)
#undef NORMLAB_FP32_RESIDUAL

}  // namespace normlab::kernels
