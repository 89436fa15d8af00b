// SPDX-License-Identifier: Apache-2.0
/// @file typed_gradients.hpp
/// @brief The backward family's bridge from a type-erased call (NormCall) to the typed tensors of
/// its launchers (Gradients, backward.cuh): used by the registry entries and by the known-wrong
/// tests.
#pragma once

#include <cstddef>
#include <optional>

#include "backward.cuh"
#include "normlab/kernel.hpp"

namespace normlab::kernels::backward {

/// The tensors of @p call as chapter 08's launchers take them: activations in T, parameters in P.
template <typename T, typename P>
Gradients<T, P> gradients_of(const NormCall& call) {
  return {.x = static_cast<const T*>(call.x),
          .x_stride = call.x_stride,
          .x_group_rows = call.x_group_rows > 1 ? call.x_group_rows : 0,
          .x_group_stride = call.x_group_rows > 1 ? call.x_group_stride : 0,
          .dy = static_cast<const T*>(call.dy),
          .dy_stride = call.dy_stride,
          .dresidual = static_cast<const T*>(call.dresidual),
          .dresidual_stride = call.dresidual_stride,
          .dx = static_cast<T*>(call.dx),
          .dx_stride = call.dx_stride,
          .weight = static_cast<const P*>(call.weight),
          .weight_plus_one = call.weight_plus_one,
          .dweight = static_cast<P*>(call.dweight),
          .dbias = static_cast<P*>(call.dbias),
          .saved_mean = call.saved_mean,
          .saved_rstd = call.saved_rstd,
          .scratch = static_cast<float*>(call.scratch),
          .scratch_bytes = call.scratch_bytes,
          .rows = call.rows,
          .cols = call.cols};
}

/// What every backward launcher takes, as the registry entries declare it (each adds its width
/// limits): fp32, fp16 and bf16 activations with parameters in their dtype or fp32, or 16-bit
/// parameters with fp32 activations; a dy in any dtype (widened, never rounded); optional
/// parameters, RMSNorm's bias too (dbias the column sums of dy); (1 + w); dx over dy; x's rows in
/// groups (a head view); dresidual added into dx. @p centre: LayerNorm.
Capabilities capabilities(bool centre);

/// Scratch bytes a call of @p shape needs: the reduction's (scratch_bytes of backward.cuh), and
/// when dy is in another dtype than x, after them on a 256-byte boundary, the fp32 copies run()
/// makes (dy's when it is 16-bit; x's, dresidual's and dx's when x is).
std::size_t scratch_bytes(Reduction reduction, bool centre, const Shape& shape);

/// Runs @p call (op rmsnorm_backward or layernorm_backward) with @p reduction on @p stream through
/// the typed launcher of its op and dtypes (backward.cuh): activations in call.dtype, parameters
/// and their gradients in call.dtype or fp32, or any of them with fp32 activations. A dy in
/// another dtype (call.dy_dtype) is read exactly: every 16-bit tensor of x, dy and dresidual is
/// widened to fp32 in the scratch, the fp32 launcher runs, and dx, computed in fp32, is rounded to
/// x's dtype once, as the launchers of that dtype round it (never dy to a narrower dtype). Throws
/// std::invalid_argument naming the argument before anything is launched when an argument cannot
/// work.
void run(const NormCall& call, Reduction reduction, cudaStream_t stream);

/// Chapter 10's row over a cluster (rmsnorm_backward_cluster, layernorm_backward_cluster): its
/// scratch for @p shape (@p centre: LayerNorm), and the run of @p call; by the launcher's own
/// rule, or in the configuration @p cluster. A dy in another dtype is read exactly as run() reads
/// it, with the copies after the cluster's own scratch; the row, so widened to fp32, must fit a
/// cluster (cluster_backward_cols), else dy_dtype is refused by name before anything is launched.
std::size_t cluster_scratch_bytes(bool centre, const Shape& shape,
                                  std::optional<ClusterBackwardShape> cluster = std::nullopt);
void run_cluster(const NormCall& call, cudaStream_t stream,
                 std::optional<ClusterBackwardShape> cluster = std::nullopt);

}  // namespace normlab::kernels::backward
