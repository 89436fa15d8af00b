// SPDX-License-Identifier: Apache-2.0
// An empty kernel that takes what the forward kernels take: their Tensors argument (kernels/
// general.cuh), 128 bytes. Its launch is the floor under a call of theirs; the gap between it
// and chapter 09's empty kernel (no argument) is what passing the argument costs the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace normlab::bench {

void launch_empty_kernel_with_tensors(cudaStream_t stream);
/// The size of the argument it takes, as the kernels' own.
std::size_t tensors_argument_bytes();

}  // namespace normlab::bench
