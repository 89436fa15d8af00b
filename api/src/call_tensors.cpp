// SPDX-License-Identifier: Apache-2.0
#include "call_tensors.hpp"

namespace normlab::dispatch {

bool given(const TensorSpec& spec, const NormCall& call) {
  switch (spec.presence) {
    case Presence::always:
      return true;
    case Presence::weight:
      return call.weight != nullptr;
    case Presence::bias:  // the bias, or (backward, which does not read it) its gradient
    case Presence::statistics:
    case Presence::residual_gradient:
      return field_of(call, spec.tensor).data != nullptr;
  }
  return false;
}

std::int64_t element_bytes(const TensorSpec& spec, const NormCall& call) {
  switch (spec.element) {
    case Element::activation:
      return static_cast<std::int64_t>(size_of(call.dtype));
    case Element::parameter:
      return static_cast<std::int64_t>(size_of(call.weight_dtype));
    case Element::incoming:
      return static_cast<std::int64_t>(size_of(call.dy_dtype.value_or(call.dtype)));
    case Element::stream:
      return static_cast<std::int64_t>(size_of(call.residual_dtype.value_or(call.dtype)));
    case Element::fp32:
      break;
  }
  return 4;
}

}  // namespace normlab::dispatch
