// SPDX-License-Identifier: Apache-2.0
/// @file slim_row.cuh
/// @brief What the slim (slim.cu) and staged (staged.cu) families share: the one kind of call
/// they are compiled for, refused by name otherwise, and a chunk's load and normalisation with a
/// weight (and a LayerNorm bias) in the activations' dtype.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

#include "configs.hpp"
#include "configured_launch.cuh"
#include "normlab/check.hpp"
#include "row_norm.cuh"

namespace normlab::kernels::configured {

/// A plain load, which the compiler schedules freely: for x and the residual, which the row's
/// sums use at once, and for parameters loaded after the statistics. Held configurations load
/// through device::load_vector instead, so that the parameters' loads go out with the row's.
template <typename T>
__device__ __forceinline__ device::Vector<T> load_row_vector(const T* at) {
  return *reinterpret_cast<const device::Vector<T>*>(at);
}

/// y of one chunk from h, its weight and (LayerNorm) its bias, as loaded: row_norm.cuh's
/// arithmetic, step for step.
template <typename T, bool kCentre>
__device__ __forceinline__ void normalise_slim(T* y, Statistics s, const device::Vector<T>& h,
                                               const device::Vector<T>& weight,
                                               const device::Vector<T>& bias) {
  constexpr int kWidth = device::Vector<T>::kWidth;
  float values[kWidth], scale[kWidth], shift[kWidth] = {};
  to_floats(h, values);
  to_floats(weight, scale);
  if constexpr (kCentre) to_floats(bias, shift);
  normalise(values, s, scale, shift);
  device::store_vector(y, from_floats<T>(values));
}

/// What these families take beyond the configuration's width (configure() checks that): rows on
/// the 16-byte grid, a weight always given (and a bias with LayerNorm), parameters in the
/// activations' dtype, no (1 + w), x one stride a row. Anything else is refused by the argument
/// that asks for more (@p fn names the family). Their entries declare the same
/// (configured_entries.cpp).
template <typename T, typename P, bool kCentre>
void refuse_what_slim_lacks(const Tensors<T, P>& t, const Config& c, const char* fn) {
  const std::string name = c.name;
  check_argument(std::is_same_v<T, P>, fn, "weight",
                 name + " takes parameters in the activations' dtype only");
  check_argument(t.weight != nullptr, fn, "weight", name + " needs a weight");
  check_argument(!kCentre || t.bias != nullptr, fn, "bias", name + " needs a bias with LayerNorm");
  check_argument(!t.weight_plus_one, fn, "weight_plus_one", name + " does not scale by (1 + w)");
  check_argument(t.x_group_rows <= 1, fn, "x_group_rows",
                 name + " reads x one stride a row (no rows in groups)");
}

/// Calls `launch.template operator()<kConfig>()` for configuration @p config, of kind kKind, once
/// the call is one these families take (refuse_what_slim_lacks, @p fn naming the family). An op
/// the configuration has no kernel for throws: configure() refuses it, so no Choice gets here.
template <Kind kKind, bool kCentre, bool kAdd, typename T, typename P, typename Launch>
void with_slim_config(const Tensors<T, P>& t, int config, const char* fn, Launch&& launch) {
  with_config<kKind>(config, [&]<int kConfig>() {
    constexpr Config c = kConfigs[kConfig];
    refuse_what_slim_lacks<T, P, kCentre>(t, c, fn);
    if constexpr (!std::is_same_v<T, P> || (kCentre && !c.layernorm) ||
                  (kCentre && kAdd && !has_add_layernorm(c))) {
      throw std::logic_error(std::string("ch09: ") + c.name + " has no kernel for this op");
    } else {
      launch.template operator()<kConfig>();
    }
  });
}

}  // namespace normlab::kernels::configured
