// SPDX-License-Identifier: Apache-2.0
#include "argument_kernel.hpp"

#include <cuda_bf16.h>

#include "general.cuh"
#include "normlab/check.hpp"

namespace normlab::bench {

namespace {

using Bf16Tensors = kernels::Tensors<__nv_bfloat16, __nv_bfloat16>;

__global__ void empty_kernel_with_tensors(const Bf16Tensors) {}

}  // namespace

void launch_empty_kernel_with_tensors(cudaStream_t stream) {
  empty_kernel_with_tensors<<<1, 32, 0, stream>>>(Bf16Tensors{});
  NORMLAB_CHECK_LAUNCH();
}

std::size_t tensors_argument_bytes() {
  return sizeof(Bf16Tensors);
}

}  // namespace normlab::bench
