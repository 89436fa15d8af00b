// SPDX-License-Identifier: Apache-2.0
/// @file configured_launch.cuh
/// @brief The configured launcher's kernel launches, one per kind of configuration: lanes.cu (a
/// group of lanes per row), block.cu (a row per block, registers capped), slim.cu (a row per
/// block, little kept beside it) and staged.cu (a row per block in shared memory). configured.cu
/// picks which.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>

#include "configs.hpp"
#include "general.cuh"

namespace normlab::kernels::configured {

/// Calls `launch.template operator()<kConfig>()` for kConfig = @p config, a configuration of
/// kind kKind: one comparison per configuration of the table, each instantiating its kernel
/// from the table's own numbers.
template <Kind kKind, int kConfig = 0, typename Launch>
void with_config(int config, Launch&& launch) {
  if constexpr (kConfig == kConfigCount) {
    throw std::logic_error("ch09: no configuration of this kind at that index");
  } else {
    if constexpr (kConfigs[kConfig].kind == kKind) {
      if (config == kConfig) return launch.template operator()<kConfig>();
    }
    with_config<kKind, kConfig + 1>(config, launch);
  }
}

/// Launches configuration kConfigs[choice.config] (a narrow one) as @p choice says.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_narrow(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream);

/// Launches configuration kConfigs[choice.config] (a block one) as @p choice says.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_block(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream);

/// Launches configuration kConfigs[choice.config] (a slim one) as @p choice says, or refuses,
/// naming the argument, a call it is not compiled for (slim.cu).
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_slim(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream);

/// Launches configuration kConfigs[choice.config] (a staged one) as @p choice says, or refuses,
/// naming the argument, a call it is not compiled for (staged.cu).
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_staged(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream);

}  // namespace normlab::kernels::configured
