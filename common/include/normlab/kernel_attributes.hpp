// SPDX-License-Identifier: Apache-2.0
/// @file kernel_attributes.hpp
/// @brief What a launcher asks the driver about a kernel before launching it, asked once and kept:
/// a launch on the same device and in the same shape pays for no driver call but the launch. Kept
/// for the life of the process: a cudaDeviceReset() in between, which drops a kernel's
/// attributes, is not seen.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace normlab {

/// Allows @p kernel at least @p bytes of dynamic shared memory on the current device
/// (cudaFuncAttributeMaxDynamicSharedMemorySize). The driver is asked only when a launch needs
/// more than the kernel was allowed there before: the allowance is kept per kernel and device and
/// never lowered, so no launch of another size finds it too small. Thread-safe.
void allow_dynamic_shared(const void* kernel, std::size_t bytes);

/// How many clusters of @p blocks blocks @p config launches of @p kernel the current device
/// holds at once (cudaOccupancyMaxActiveClusters), with the kernel allowed @p config's dynamic
/// shared memory (allow_dynamic_shared) and, past 8 blocks, the non-portable cluster size. Asked
/// the first time for each kernel, device, cluster size, block size and dynamic shared memory,
/// then kept. Thread-safe.
int resident_clusters(const void* kernel, const cudaLaunchConfig_t& config, int blocks);

}  // namespace normlab
