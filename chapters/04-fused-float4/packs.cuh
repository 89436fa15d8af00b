// SPDX-License-Identifier: Apache-2.0
/// @file packs.cuh
/// @brief Chapter 04's packs: what one access moves (a float4 on the 16-byte path, a float on
/// the 4-byte path) and the arithmetic on one pack. Shared by the chapter's kernels and by the
/// known-wrong kernel that drops their tail.
#pragma once

namespace normlab::ch04 {

/// Floats in one pack.
template <typename Pack>
constexpr int kWidth = sizeof(Pack) / sizeof(float);

__device__ inline float squares(float v) {
  return v * v;
}
__device__ inline float squares(float4 v) {
  return v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
}

__device__ inline float normalized(float v, float w, float inverse_rms) {
  return v * inverse_rms * w;
}
__device__ inline float4 normalized(float4 v, float4 w, float inverse_rms) {
  return make_float4(v.x * inverse_rms * w.x, v.y * inverse_rms * w.y, v.z * inverse_rms * w.z,
                     v.w * inverse_rms * w.w);
}

}  // namespace normlab::ch04
