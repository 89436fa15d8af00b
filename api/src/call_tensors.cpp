// SPDX-License-Identifier: Apache-2.0
#include "call_tensors.hpp"

namespace normlab::dispatch {

Bound bound(const NormCall& call, Tensor tensor) {
  switch (tensor) {
    case Tensor::x:
      return {call.x, call.x_stride};
    case Tensor::residual:
      return {call.residual, call.residual_stride};
    case Tensor::weight:
      return {call.weight};
    case Tensor::bias:
      return {call.bias};
    case Tensor::dy:
      return {call.dy, call.dy_stride};
    case Tensor::dresidual:
      return {call.dresidual, call.dresidual_stride};
    case Tensor::saved_mean:
      return {call.saved_mean};
    case Tensor::saved_rstd:
      return {call.saved_rstd};
    case Tensor::y:
      return {call.y, call.y_stride};
    case Tensor::residual_out:
      return {call.residual_out, call.residual_out_stride};
    case Tensor::mean:
      return {call.mean};
    case Tensor::rstd:
      return {call.rstd};
    case Tensor::dx:
      return {call.dx, call.dx_stride};
    case Tensor::dweight:
      return {call.dweight};
    case Tensor::dbias:
      return {call.dbias};
  }
  return {};
}

bool given(const TensorSpec& spec, const NormCall& call) {
  switch (spec.presence) {
    case Presence::always:
      return true;
    case Presence::weight:
      return call.weight != nullptr;
    case Presence::bias:  // the bias, or (backward, which does not read it) its gradient
    case Presence::statistics:
    case Presence::residual_gradient:
      return bound(call, spec.tensor).data != nullptr;
  }
  return false;
}

std::int64_t element_bytes(const TensorSpec& spec, const NormCall& call) {
  switch (spec.element) {
    case Element::activation:
      return static_cast<std::int64_t>(size_of(call.dtype));
    case Element::parameter:
      return static_cast<std::int64_t>(size_of(call.weight_dtype));
    case Element::fp32:
      break;
  }
  return 4;
}

}  // namespace normlab::dispatch
