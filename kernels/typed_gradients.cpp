// SPDX-License-Identifier: Apache-2.0
// The backward family's type-erased entry point (typed_gradients.hpp): a call's op and dtypes
// mapped to the typed launchers of backward.cuh.
#include "typed_gradients.hpp"

#include <string>

#include "backward.cuh"
#include "normlab/check.hpp"
#include "normlab/kernel.hpp"
#include "typed_call.hpp"

namespace normlab::kernels::backward {

namespace {

template <typename T, typename P>
void run_op(const NormCall& call, Reduction reduction, cudaStream_t stream) {
  const Gradients<T, P> g = gradients_of<T, P>(call);
  if (call.op == Op::rmsnorm_backward) return rmsnorm_backward(g, reduction, stream);
  layernorm_backward(g, reduction, stream);
}

}  // namespace

void run(const NormCall& call, Reduction reduction, cudaStream_t stream) {
  const char* fn = "kernels::backward::run";
  check_argument(call.op == Op::rmsnorm_backward || call.op == Op::layernorm_backward, fn, "op",
                 [&] {
                   return std::string("must be rmsnorm_backward or layernorm_backward (got ") +
                          name_of(call.op) + ")";
                 });
  with_dtype_pair(fn, call,
                  [&]<typename T, typename P>() { run_op<T, P>(call, reduction, stream); });
}

}  // namespace normlab::kernels::backward
