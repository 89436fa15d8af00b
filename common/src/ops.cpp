// SPDX-License-Identifier: Apache-2.0
#include "normlab/ops.hpp"

#include <stdexcept>
#include <string>

#include "normlab/kernel.hpp"

namespace normlab {

bool is_add(Op op) {
  return op == Op::add_rmsnorm || op == Op::add_layernorm;
}

bool is_layernorm(Op op) {
  return op == Op::layernorm || op == Op::add_layernorm;
}

bool is_backward(Op op) {
  return op == Op::rmsnorm_backward || op == Op::layernorm_backward;
}

bool is_forward_norm(Op op) {
  return op == Op::rmsnorm || op == Op::layernorm || is_add(op);
}

bool takes_bias(Op op) {
  return is_layernorm(op) || op == Op::layernorm_backward;
}

bool may_take_bias(Op op) {
  return op != Op::copy;
}

DType dy_dtype_of(const Shape& shape) {
  return shape.dy_dtype.value_or(shape.dtype);
}

DType residual_dtype_of(const Shape& shape) {
  return shape.residual_dtype.value_or(shape.dtype);
}

namespace {
constexpr Op kOps[] = {
    Op::copy,          Op::rmsnorm,          Op::layernorm,         Op::add_rmsnorm,
    Op::add_layernorm, Op::rmsnorm_backward, Op::layernorm_backward};
}  // namespace

const char* name_of(Op op) {
  switch (op) {
    case Op::copy:
      return "copy";
    case Op::rmsnorm:
      return "rmsnorm";
    case Op::layernorm:
      return "layernorm";
    case Op::add_rmsnorm:
      return "add_rmsnorm";
    case Op::add_layernorm:
      return "add_layernorm";
    case Op::rmsnorm_backward:
      return "rmsnorm_backward";
    case Op::layernorm_backward:
      return "layernorm_backward";
  }
  return "unknown";
}

Op parse_op(std::string_view text, const char* argument) {
  for (Op op : kOps) {
    if (text == name_of(op)) return op;
  }
  throw std::invalid_argument(std::string("argument '") + argument + "': unknown op '" +
                              std::string(text) +
                              "' (expected rmsnorm, layernorm, add_rmsnorm, add_layernorm, ...)");
}

// [bytes_model]
double bytes_moved(Op op, const Shape& s) {
  const double activation = static_cast<double>(s.rows) * static_cast<double>(s.cols) *
                            static_cast<double>(size_of(s.dtype));
  const double parameter =
      static_cast<double>(s.cols) * static_cast<double>(size_of(s.weight_dtype));
  const double incoming = static_cast<double>(s.rows) * static_cast<double>(s.cols) *
                          static_cast<double>(size_of(dy_dtype_of(s)));  // dy
  const double stream = static_cast<double>(s.rows) * static_cast<double>(s.cols) *
                        static_cast<double>(size_of(residual_dtype_of(s)));  // residual (out)
  const double statistic = static_cast<double>(s.rows) * 4.0;                // one fp32 per row
  const double parameters = (s.weight ? parameter : 0.0) + (s.bias ? parameter : 0.0);
  switch (op) {
    case Op::copy:
      return 2 * activation;
    case Op::rmsnorm:
    case Op::layernorm:
      return 2 * activation + parameters;
    case Op::add_rmsnorm:
    case Op::add_layernorm:
      return 2 * activation + 2 * stream + parameters;
    // read x, dy; write dx; read the parameters, write their gradients; read the statistics
    case Op::rmsnorm_backward:
      return 2 * activation + incoming + 2 * parameters + statistic;
    case Op::layernorm_backward:
      return 2 * activation + incoming + 2 * parameters + 2 * statistic;
  }
  return 0.0;
}
// [bytes_model]

}  // namespace normlab
