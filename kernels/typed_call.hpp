// SPDX-License-Identifier: Apache-2.0
/// @file typed_call.hpp
/// @brief From a registry call (NormCall, type-erased) to the general launcher's typed Tensors:
/// shared by every family whose launchers take them; the dtype pairing also by the backward's.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "general.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/kernel.hpp"

namespace normlab::kernels {

/// @p call's tensors; x's groups narrowed to Tensors' 32 bits (with_typed_tensors validates
/// them first).
template <typename T, typename P, typename R = T>
Tensors<T, P, R> tensors_of(const NormCall& call) {
  return {
      .x = static_cast<const T*>(call.x),
      .x_stride = call.x_stride,
      .residual = static_cast<const R*>(call.residual),
      .residual_stride = call.residual_stride,
      .y = static_cast<T*>(call.y),
      .y_stride = call.y_stride,
      .residual_out = static_cast<R*>(call.residual_out),
      .residual_out_stride = call.residual_out_stride,
      .weight = static_cast<const P*>(call.weight),
      .bias = static_cast<const P*>(call.bias),
      .weight_plus_one = call.weight_plus_one,
      .x_group_rows = static_cast<std::int32_t>(call.x_group_rows > 1 ? call.x_group_rows : 0),
      .mean = call.mean,
      .rstd = call.rstd,
      .rows = call.rows,
      .cols = call.cols,
      .eps = call.eps,
      .x_group_stride = static_cast<std::int32_t>(call.x_group_rows > 1 ? call.x_group_stride : 0)};
}

/// What chapter 07's launchers take, and so every kernel built on its tensor I/O and arithmetic
/// (chapters 09 and 10): fp32, fp16 and bf16 tensors with parameters in their dtype or fp32;
/// weight and bias optional; (1 + w); any stride and element alignment; x's rows in two levels
/// (the general launcher's kernels and chapter 09's groups of lanes have instances that take
/// them, chapter 09's block kernels hand them to the general launcher); in place; mean and rstd
/// written. Any
/// width and any number of rows unless a chapter narrows it.
inline Capabilities every_tensor() {
  return {.dtypes = {DType::f32, DType::f16, DType::bf16},
          .fp32_parameters = true,
          .optional_parameters = true,
          .weight_plus_one = true,
          .in_place = true,
          .two_level_rows = true,
          .writes_statistics = true};
}

/// What the general launcher itself takes besides: fp16 and bf16 parameters with fp32 tensors
/// (its instances of those pairings), RMSNorm with a bias (normalise_and_store adds one
/// whenever it is given), and an fp32 residual stream with 16-bit x (fp32_residual.cuh); the
/// other families are not instantiated for these, and their launchers refuse an RMSNorm bias and
/// an fp32 stream.
inline Capabilities general_tensors() {
  Capabilities can = every_tensor();
  can.narrow_parameters = true;
  can.rmsnorm_bias = true;
  can.fp32_residual = true;
  return can;
}

/// Which dtype pairings a launcher is instantiated for: activations with parameters in their
/// dtype or fp32 (every family), and also fp32 activations with fp16 or bf16 parameters (the
/// general launcher and the backward family).
enum class Pairings { usual, narrow_parameters };

/// Checks that @p call's parameters are in a pairing of @p kPairings, then calls
/// @p visit.template operator()<T, P>() with the pairing's element types (T the activations',
/// P the parameters'). Shared by every launcher that maps a NormCall to typed tensors.
template <Pairings kPairings = Pairings::usual, typename Visit>
void with_dtype_pair(const char* fn, const NormCall& call, Visit&& visit) {
  constexpr bool kNarrow = kPairings == Pairings::narrow_parameters;
  check_argument(call.weight_dtype == call.dtype || call.weight_dtype == DType::f32 ||
                     (kNarrow && call.dtype == DType::f32),
                 fn, "weight_dtype", [&] {
                   return std::string("must be the input dtype or fp32") +
                          (kNarrow ? ", or any with fp32 inputs" : "") + " (got " +
                          name_of(call.weight_dtype) + " with " + name_of(call.dtype) + " inputs)";
                 });
  const bool fp32_parameters = call.weight_dtype == DType::f32;
  switch (call.dtype) {
    case DType::f32:
      if constexpr (kNarrow) {
        if (call.weight_dtype == DType::f16) return visit.template operator()<float, __half>();
        if (call.weight_dtype == DType::bf16)
          return visit.template operator()<float, __nv_bfloat16>();
      }
      return visit.template operator()<float, float>();
    case DType::f16:
      return fp32_parameters ? visit.template operator()<__half, float>()
                             : visit.template operator()<__half, __half>();
    case DType::bf16:
      return fp32_parameters ? visit.template operator()<__nv_bfloat16, float>()
                             : visit.template operator()<__nv_bfloat16, __nv_bfloat16>();
  }
}

/// Which residual streams a launcher's add + norm is instantiated for: in x's dtype (every
/// family), and also in fp32 with 16-bit x (the general launcher: Tensors<T, P, float>).
enum class Streams { x_dtype, fp32 };

/// Checks that @p call is a forward norm (rmsnorm, layernorm, add_rmsnorm, add_layernorm) with
/// parameters in a pairing of @p kPairings and, for add + norm, a residual stream of
/// @p kStreams, then calls @p launch with its Tensors<T, P> (Tensors<T, P, float> for an fp32
/// stream with 16-bit x). Other ops ignore NormCall::residual_dtype, as they ignore the residual.
template <Pairings kPairings = Pairings::usual, Streams kStreams = Streams::x_dtype,
          typename Launch>
void with_typed_tensors(const char* fn, const NormCall& call, Launch&& launch) {
  check_argument(is_forward_norm(call.op), fn, "op", [&] {
    return std::string("must be rmsnorm, layernorm, add_rmsnorm or add_layernorm (got ") +
           name_of(call.op) + ")";
  });
  constexpr bool kFp32 = kStreams == Streams::fp32;
  const DType stream = call.residual_dtype.value_or(call.dtype);
  const bool fp32_stream = is_add(call.op) && stream != call.dtype;
  check_argument(!fp32_stream || (kFp32 && stream == DType::f32), fn, "residual_dtype", [&] {
    return std::string("must be the input dtype") + (kFp32 ? ", or fp32 with 16-bit inputs" : "") +
           " (got " + name_of(stream) + " with " + name_of(call.dtype) + " inputs)";
  });
  validate_row_groups(fn, "x", call.rows, call.cols, call.x_stride, call.x_group_rows,
                      call.x_group_stride);  // before tensors_of narrows them
  with_dtype_pair<kPairings>(fn, call, [&]<typename T, typename P>() {
    if constexpr (kFp32 && !std::is_same_v<T, float>) {
      if (fp32_stream) return launch(tensors_of<T, P, float>(call));
    }
    launch(tensors_of<T, P>(call));
  });
}

}  // namespace normlab::kernels
