// SPDX-License-Identifier: Apache-2.0
/// @file passes.cuh
/// @brief Chapter 12's two kernels, launched by sharded.cpp's stages: the moments of each row's
/// slice, and the slice normalised with the exchanged moments.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ch12.hpp"

namespace normlab::device {
struct Moments;  // normlab/device/welford.cuh
}  // namespace normlab::device

namespace normlab::ch12 {

/// Where pass 2 finds a row's moments after the exchange: part p of row r at
/// moments[p * part_stride + r], parts of them (RMSNorm: 1, already summed; LayerNorm: one a
/// rank, gathered rank after rank); @p cols the whole row's width.
struct Exchanged {
  const device::Moments* moments;
  std::int64_t parts;
  std::int64_t part_stride;
  std::int64_t cols;
};

/// Pass 1: moments[r] = the moments of row r of @p t (count, mean, M2; RMSNorm's about zero).
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_slice_moments(const Tensors<T, P>& t, device::Moments* moments, cudaStream_t stream);

/// Pass 2: each row of @p t normalised with the statistics of its exchanged moments.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_slice_normalise(const Tensors<T, P>& t, const Exchanged& exchanged,
                            cudaStream_t stream);

}  // namespace normlab::ch12
