// SPDX-License-Identifier: Apache-2.0
// The general launcher's type-erased entry point (general_forward.hpp): a call's op and dtypes
// mapped to the typed launchers of general.cuh (typed_call.hpp).
#include "general_forward.hpp"

#include <type_traits>

#include "general.cuh"
#include "normlab/kernel.hpp"
#include "typed_call.hpp"

namespace normlab::kernels {

void forward(const NormCall& call, cudaStream_t stream) {
  constexpr Pairings kPairings = Pairings::narrow_parameters;
  with_typed_tensors<kPairings, Streams::fp32>(
      "kernels::forward", call, [&]<typename T, typename P, typename R>(const Tensors<T, P, R>& t) {
        if constexpr (!std::is_same_v<T, R>) {  // an fp32 stream: add + norm only
          if (call.op == Op::add_rmsnorm) return add_rmsnorm(t, stream);
          return add_layernorm(t, stream);
        } else {
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
        }
      });
}

}  // namespace normlab::kernels
