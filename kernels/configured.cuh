// SPDX-License-Identifier: Apache-2.0
/// @file configured.cuh
/// @brief The configured launcher (chapter 09). The four forward norms of chapter 07 on the
/// same Tensors, each launched by a kernel chosen for the call's rows, width, dtype and
/// alignment (configs.hpp): several rows per block for narrow rows, a register budget per width
/// for medium rows, a row split over a whole block for few rows, chapter 07's launcher beyond.
#pragma once

#include <cuda_runtime.h>

#include "general.cuh"

namespace normlab::kernels::configured {

/// The launchers, for T = P = float and for T = __half or __nv_bfloat16 with P = T or float,
/// with chapter 07's contract (general.cuh): any stride and element alignment, in place, (1 + w),
/// optional parameters and statistics; std::invalid_argument naming the argument before
/// anything is launched. @p config null: the dispatcher's choice (choose()); the name of a
/// configuration of kConfigs: that one (the sweep), refused by name with std::invalid_argument
/// when it cannot hold the row.
template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);
template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);
template <typename T, typename P>
void add_rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);
template <typename T, typename P>
void add_layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);

}  // namespace normlab::kernels::configured
