// SPDX-License-Identifier: Apache-2.0
// The general launcher's type-erased entry point (general_forward.hpp): a call's op and dtypes
// mapped to the typed launchers of general.cuh (typed_call.hpp).
#include "general_forward.hpp"

#include "general.cuh"
#include "normlab/kernel.hpp"
#include "typed_call.hpp"

namespace normlab::kernels {

void forward(const NormCall& call, cudaStream_t stream) {
  with_typed_tensors<Pairings::narrow_parameters>("kernels::forward", call, [&](const auto& t) {
    switch (call.op) {
      case Op::rmsnorm:
        return rmsnorm(t, stream);
      case Op::layernorm:
        return layernorm(t, stream);
      case Op::add_rmsnorm:
        return add_rmsnorm(t, stream);
      default:
        return add_layernorm(t, stream);
    }
  });
}

}  // namespace normlab::kernels
