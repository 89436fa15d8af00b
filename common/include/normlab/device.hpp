// SPDX-License-Identifier: Apache-2.0
/// @file device.hpp
/// @brief Is there a GPU, and which one.
#pragma once

#include <string>
#include <string_view>

namespace normlab {

/// Exit code of every normlab program that needs a GPU and finds none.
inline constexpr int kNoGpuExitCode = 69;

/// Empty when a CUDA device is usable; otherwise one line that says no CUDA GPU is visible,
/// CUDA's error name following in parentheses.
std::string gpu_unavailable_reason();

/// When no CUDA device is usable, prints "<program>: <reason>; it runs kernels and needs a
/// CUDA GPU." (one line, stderr) and returns true.
bool report_missing_gpu(std::string_view program);

/// Name of the current device, e.g. "NVIDIA H100 80GB HBM3".
std::string device_name();

/// Size of the current device's L2 cache in bytes.
int l2_cache_bytes();

/// Compute capability of the current device as one number: 75 for sm_75 (T4), 90 for sm_90.
int compute_capability();

/// The most shared memory a block may have on the current device, static and dynamic together,
/// once a kernel is allowed more than the default 48 KB (cudaFuncSetAttribute), in bytes.
int most_shared_bytes_per_block();

/// Whether the current device launches thread-block clusters (compute capability 9.0 and newer).
bool has_clusters();

}  // namespace normlab
