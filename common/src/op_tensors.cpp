// SPDX-License-Identifier: Apache-2.0
#include "normlab/op_tensors.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "normlab/parallel.hpp"
#include "normlab/random.hpp"
#include "normlab/reference.hpp"
#include "normlab/runner.hpp"

namespace normlab {

namespace {

using enum Tensor;
constexpr Role kIn = Role::input, kOut = Role::output, kStat = Role::statistic,
               kGrad = Role::gradient;
constexpr Extent kMatrix = Extent::matrix, kVector = Extent::row_vector, kRow = Extent::per_row;
constexpr Element kAct = Element::activation, kParam = Element::parameter, kF32 = Element::fp32,
                  kIncoming = Element::incoming, kStream = Element::stream;

// [op_tables]
constexpr TensorSpec kCopy[] = {
    {x, kIn, kMatrix, kAct},
    {y, kOut, kMatrix, kAct, Presence::always, x},
};
// RMSNorm's bias: PyTorch-style modules with one, y = x * rstd * w + b.
constexpr TensorSpec kRmsnorm[] = {
    {x, kIn, kMatrix, kAct},
    {weight, kIn, kVector, kParam, Presence::weight},
    {bias, kIn, kVector, kParam, Presence::bias},
    {y, kOut, kMatrix, kAct, Presence::always, x},
    {rstd, kStat, kRow, kF32, Presence::statistics},
};
constexpr TensorSpec kLayernorm[] = {
    {x, kIn, kMatrix, kAct},
    {weight, kIn, kVector, kParam, Presence::weight},
    {bias, kIn, kVector, kParam, Presence::bias},
    {y, kOut, kMatrix, kAct, Presence::always, x},
    {mean, kStat, kRow, kF32, Presence::statistics},
    {rstd, kStat, kRow, kF32, Presence::statistics},
};
constexpr TensorSpec kAddRmsnorm[] = {
    {x, kIn, kMatrix, kAct},
    {residual, kIn, kMatrix, kStream},
    {weight, kIn, kVector, kParam, Presence::weight},
    {bias, kIn, kVector, kParam, Presence::bias},
    {y, kOut, kMatrix, kAct},
    {residual_out, kOut, kMatrix, kStream, Presence::always, residual},
    {rstd, kStat, kRow, kF32, Presence::statistics},
};
constexpr TensorSpec kAddLayernorm[] = {
    {x, kIn, kMatrix, kAct},
    {residual, kIn, kMatrix, kStream},
    {weight, kIn, kVector, kParam, Presence::weight},
    {bias, kIn, kVector, kParam, Presence::bias},
    {y, kOut, kMatrix, kAct},
    {residual_out, kOut, kMatrix, kStream, Presence::always, residual},
    {mean, kStat, kRow, kF32, Presence::statistics},
    {rstd, kStat, kRow, kF32, Presence::statistics},
};
// Backward: x is the forward's input (h for add + norm), dresidual the gradient that reaches h
// from the residual stream and is added into dx.
constexpr TensorSpec kRmsnormBackward[] = {
    {x, kIn, kMatrix, kAct},
    {weight, kIn, kVector, kParam, Presence::weight},
    {dy, kIn, kMatrix, kIncoming},
    {dresidual, kIn, kMatrix, kAct, Presence::residual_gradient},
    {saved_rstd, kIn, kRow, kF32},
    {dx, kOut, kMatrix, kAct, Presence::always, dy},
    {dweight, kGrad, kVector, kParam, Presence::weight},
    {dbias, kGrad, kVector, kParam, Presence::bias},
};
constexpr TensorSpec kLayernormBackward[] = {
    {x, kIn, kMatrix, kAct},
    {weight, kIn, kVector, kParam, Presence::weight},
    {dy, kIn, kMatrix, kIncoming},
    {dresidual, kIn, kMatrix, kAct, Presence::residual_gradient},
    {saved_mean, kIn, kRow, kF32},
    {saved_rstd, kIn, kRow, kF32},
    {dx, kOut, kMatrix, kAct, Presence::always, dy},
    {dweight, kGrad, kVector, kParam, Presence::weight},
    {dbias, kGrad, kVector, kParam, Presence::bias},
};
// [op_tables]

// The forward op whose statistics a backward op reads.
Op forward_of(Op op) {
  return op == Op::layernorm_backward ? Op::layernorm : Op::rmsnorm;
}

// Dense float64 values of one block of rows, per tensor: activations and statistics hold the
// block's rows, parameters all cols.
using Dense = std::array<std::vector<double>, kTensorCount>;

std::vector<double>& at(Dense& d, Tensor t) {
  return d[static_cast<std::size_t>(t)];
}
const std::vector<double>& at(const Dense& d, Tensor t) {
  return d[static_cast<std::size_t>(t)];
}

// The float64 reference on one block of @p rows rows: reads the inputs of @p values, writes
// every result the op has (those the case lacks are ignored by the caller). This is the only
// place that says what each op computes.
void reference_rows(Op op, const Case& c, std::int64_t rows, Dense& values) {
  ReferenceParams params{.rows = rows,
                         .cols = c.shape.cols,
                         .eps = c.eps,
                         .weight = at(values, weight),
                         .bias = at(values, bias),
                         .weight_plus_one = c.weight_plus_one};
  // h as the kernel stores it: in the residual stream's dtype (x's, or fp32 with 16-bit x).
  const Rounding h_rounding = rounding_for(residual_dtype_of(c.shape));
  ReferenceForward forward;
  switch (op) {
    case Op::rmsnorm:
      forward = rmsnorm_forward(at(values, x), params);
      break;
    case Op::layernorm:
      forward = layernorm_forward(at(values, x), params);
      break;
    case Op::add_rmsnorm:
      forward = add_rmsnorm_forward(at(values, x), at(values, residual), params, h_rounding);
      break;
    case Op::add_layernorm:
      forward = add_layernorm_forward(at(values, x), at(values, residual), params, h_rounding);
      break;
    case Op::rmsnorm_backward:
    case Op::layernorm_backward: {
      ReferenceBackward grads = op == Op::rmsnorm_backward
                                    ? rmsnorm_backward(at(values, dy), at(values, x), params)
                                    : layernorm_backward(at(values, dy), at(values, x), params);
      if (c.shape.bias) {  // the bias's value does not enter the gradients, only its presence
        const std::vector<double>& incoming = at(values, dy);
        grads.dbias.assign(static_cast<std::size_t>(c.shape.cols), 0.0);
        for (std::size_t i = 0; i < incoming.size(); ++i)
          grads.dbias[i % grads.dbias.size()] += incoming[i];
      }
      const std::vector<double>& from_residual = at(values, dresidual);
      for (std::size_t i = 0; i < from_residual.size(); ++i)
        grads.dx[i] += from_residual[i];
      at(values, dx) = std::move(grads.dx);
      at(values, dweight) = std::move(grads.dweight);
      at(values, dbias) = std::move(grads.dbias);
      return;
    }
    case Op::copy:
      forward.y = at(values, x);
      break;
  }
  at(values, y) = std::move(forward.y);
  at(values, residual_out) = std::move(forward.residual);
  at(values, mean) = std::move(forward.mean);
  at(values, rstd) = std::move(forward.rstd);
}

// Rows per reference block: small enough that a block's dense copies stay in cache-sized
// megabytes at 12288 columns, large enough to amortise the per-block work.
constexpr std::int64_t kRowsPerBlock = 16;
// Chunks of rows per parallel task: at most this many, so that per-chunk gradient partials
// (cols doubles each) stay small; a function of rows only, so results do not depend on the
// thread count.
constexpr std::int64_t kMaxChunks = 256;

struct Chunks {
  std::int64_t count = 0, rows_each = 0;
};

Chunks chunks_of(std::int64_t rows) {
  if (rows == 0) return {};
  const std::int64_t each = std::max(kRowsPerBlock, (rows + kMaxChunks - 1) / kMaxChunks);
  return {(rows + each - 1) / each, each};
}

// Calls block(first_row, rows, dense values) for every block of rows of chunk @p chunk, the
// inputs of @p inputs densified for the block and the reference of @p op computed on them.
template <typename BlockFn>
void for_each_reference_block(Op op, const Case& c, const HostTensors& inputs,
                              const Dense& parameters, const Chunks& chunks, std::int64_t chunk,
                              BlockFn&& block) {
  const std::int64_t begin = chunk * chunks.rows_each;
  const std::int64_t end = std::min(c.shape.rows, begin + chunks.rows_each);
  for (std::int64_t r = begin; r < end; r += kRowsPerBlock) {
    const std::int64_t rows = std::min(kRowsPerBlock, end - r);
    Dense values = parameters;
    for (const TensorSpec& spec : tensors_of(op)) {
      if (spec.role != Role::input || spec.extent == Extent::row_vector || !present(spec, c))
        continue;
      at(values, spec.tensor) = at(inputs, spec.tensor).to_dense(r, rows);
    }
    reference_rows(op, c, rows, values);
    block(r, rows, values);
  }
}

// The parameters (weight, bias) of @p c as doubles, in every block's Dense.
Dense dense_parameters(const Case& c, const HostTensors& inputs) {
  Dense values;
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (spec.role == Role::input && spec.extent == Extent::row_vector && present(spec, c))
      at(values, spec.tensor) = at(inputs, spec.tensor).to_dense();
  }
  return values;
}

HostMatrix matrix_for(const TensorSpec& spec, const Case& c) {
  const DType dtype = dtype_of(spec, c);
  switch (spec.extent) {
    case Extent::matrix:
      if (spec.tensor == x) {
        return HostMatrix(dtype, c.shape.rows, c.shape.cols, activation_stride(c), c.group_rows,
                          group_stride(c));
      }
      return HostMatrix(dtype, c.shape.rows, c.shape.cols, activation_stride(c));
    case Extent::row_vector:
      return HostMatrix(dtype, 1, c.shape.cols);
    case Extent::per_row:
      return HostMatrix(dtype, c.shape.rows, 1);
  }
  return {};
}

// What each made input is drawn from. Activations follow the case's distribution (a seed per
// tensor); incoming gradients are unit normals (the sum-over-rows tolerance assumes it);
// weights are all different and near 1 (near 0 for the 1 + w form), so a kernel that drops or
// misplaces them fails.
InputSpec fill_of(Tensor tensor, const Case& c) {
  const std::uint64_t seed = c.input.seed;
  switch (tensor) {
    case residual:
      return {c.input.distribution, c.input.mean, c.input.scale, seed + 1};
    case dy:
      return {.seed = seed + 2};
    case weight:
      return {Distribution::uniform, c.weight_plus_one ? 0.0 : 1.0, 0.3, seed + 3};
    case bias:
      return {.scale = 0.5, .seed = seed + 4};
    case dresidual:
      return {.seed = seed + 5};
    default:
      return c.input;
  }
}

}  // namespace

std::span<const TensorSpec> tensors_of(Op op) {
  switch (op) {
    case Op::rmsnorm:
      return kRmsnorm;
    case Op::layernorm:
      return kLayernorm;
    case Op::add_rmsnorm:
      return kAddRmsnorm;
    case Op::add_layernorm:
      return kAddLayernorm;
    case Op::rmsnorm_backward:
      return kRmsnormBackward;
    case Op::layernorm_backward:
      return kLayernormBackward;
    case Op::copy:
      return kCopy;
  }
  throw std::invalid_argument("tensors_of: unknown op");
}

const char* name_of(Tensor tensor) {
  static constexpr const char* kNames[kTensorCount] = {
      "x", "residual",     "weight", "bias", "dy", "dresidual", "saved_mean", "saved_rstd",
      "y", "residual_out", "mean",   "rstd", "dx", "dweight",   "dbias"};
  return kNames[static_cast<int>(tensor)];
}

OutputKind output_kind(Role role) {
  switch (role) {
    case Role::statistic:
      return OutputKind::row_statistic;
    case Role::gradient:
      return OutputKind::sum_over_rows;
    case Role::input:
    case Role::output:
      break;
  }
  return OutputKind::element;
}

bool present(const TensorSpec& spec, const Case& c) {
  switch (spec.presence) {
    case Presence::always:
      return true;
    case Presence::weight:
      return c.shape.weight;
    case Presence::bias:
      return c.shape.bias;
    case Presence::statistics:
      return c.statistics;
    case Presence::residual_gradient:
      return c.residual_gradient;
  }
  return false;
}

DType dtype_of(const TensorSpec& spec, const Case& c) {
  switch (spec.element) {
    case Element::activation:
      return c.shape.dtype;
    case Element::parameter:
      return c.shape.weight_dtype;
    case Element::incoming:
      return dy_dtype_of(c.shape);
    case Element::stream:
      return residual_dtype_of(c.shape);
    case Element::fp32:
      break;
  }
  return DType::f32;
}

void bind(NormCall& call, Tensor tensor, void* data, std::int64_t stride) {
  switch (tensor) {
    case x:
      call.x = data, call.x_stride = stride;
      return;
    case residual:
      call.residual = data, call.residual_stride = stride;
      return;
    case weight:
      call.weight = data;
      return;
    case bias:
      call.bias = data;
      return;
    case dy:
      call.dy = data, call.dy_stride = stride;
      return;
    case dresidual:
      call.dresidual = data, call.dresidual_stride = stride;
      return;
    case saved_mean:
      call.saved_mean = static_cast<const float*>(data);
      return;
    case saved_rstd:
      call.saved_rstd = static_cast<const float*>(data);
      return;
    case y:
      call.y = data, call.y_stride = stride;
      return;
    case residual_out:
      call.residual_out = data, call.residual_out_stride = stride;
      return;
    case mean:
      call.mean = static_cast<float*>(data);
      return;
    case rstd:
      call.rstd = static_cast<float*>(data);
      return;
    case dx:
      call.dx = data, call.dx_stride = stride;
      return;
    case dweight:
      call.dweight = data;
      return;
    case dbias:
      call.dbias = data;
      return;
  }
}

TensorField field_of(const NormCall& call, Tensor tensor) {
  switch (tensor) {
    case x:
      return {call.x, call.x_stride};
    case residual:
      return {call.residual, call.residual_stride};
    case weight:
      return {call.weight};
    case bias:
      return {call.bias};
    case dy:
      return {call.dy, call.dy_stride};
    case dresidual:
      return {call.dresidual, call.dresidual_stride};
    case saved_mean:
      return {call.saved_mean};
    case saved_rstd:
      return {call.saved_rstd};
    case y:
      return {call.y, call.y_stride};
    case residual_out:
      return {call.residual_out, call.residual_out_stride};
    case mean:
      return {call.mean};
    case rstd:
      return {call.rstd};
    case dx:
      return {call.dx, call.dx_stride};
    case dweight:
      return {call.dweight};
    case dbias:
      return {call.dbias};
  }
  return {};
}

HostMatrix& at(HostTensors& tensors, Tensor tensor) {
  return tensors[static_cast<std::size_t>(tensor)];
}

const HostMatrix& at(const HostTensors& tensors, Tensor tensor) {
  return tensors[static_cast<std::size_t>(tensor)];
}

std::int64_t activation_stride(const Case& c) {
  return c.shape.cols + c.pad;
}

std::int64_t group_stride(const Case& c) {
  return c.group_rows > 1 ? c.group_rows * activation_stride(c) + c.group_gap : 0;
}

HostTensors make_inputs(const Case& c) {
  HostTensors inputs;
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (spec.role != Role::input || !present(spec, c)) continue;
    HostMatrix& m = at(inputs, spec.tensor);
    m = matrix_for(spec, c);
    if (spec.tensor != saved_mean && spec.tensor != saved_rstd)
      fill_random(m, fill_of(spec.tensor, c));
  }
  if (is_backward(c.op)) {
    // The statistics a forward pass saved: the float64 forward reference, stored as fp32.
    const Dense parameters = dense_parameters(c, inputs);
    const Chunks chunks = chunks_of(c.shape.rows);
    const Op forward = forward_of(c.op);
    parallel_for(chunks.count, [&](std::int64_t chunk) {
      for_each_reference_block(forward, c, inputs, parameters, chunks, chunk,
                               [&](std::int64_t first, std::int64_t rows, Dense& values) {
                                 for (std::int64_t r = 0; r < rows; ++r) {
                                   const auto i = static_cast<std::size_t>(r);
                                   if (forward == Op::layernorm)
                                     at(inputs, saved_mean).set(first + r, 0, at(values, mean)[i]);
                                   at(inputs, saved_rstd).set(first + r, 0, at(values, rstd)[i]);
                                 }
                               });
    });
  }
  return inputs;
}

HostTensors make_results(const Case& c) {
  HostTensors results;
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (spec.role != Role::input && present(spec, c))
      at(results, spec.tensor) = matrix_for(spec, c);
  }
  return results;
}

std::vector<CompareReport> compare_results(const Case& c, const HostTensors& inputs,
                                           const HostTensors& results) {
  std::vector<const TensorSpec*> checked;
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (spec.role != Role::input && present(spec, c)) checked.push_back(&spec);
  }
  const Dense parameters = dense_parameters(c, inputs);
  const Chunks chunks = chunks_of(c.shape.rows);
  const auto chunk_count = static_cast<std::size_t>(chunks.count);
  // Per chunk: a report per compared result (empty for gradients) and the gradients' partial
  // sums over the chunk's rows.
  std::vector<std::vector<CompareReport>> reports(chunk_count,
                                                  std::vector<CompareReport>(checked.size()));
  std::vector<Dense> partial_sums(chunk_count);
  parallel_for(chunks.count, [&](std::int64_t chunk) {
    auto& chunk_reports = reports[static_cast<std::size_t>(chunk)];
    Dense& sums = partial_sums[static_cast<std::size_t>(chunk)];
    for_each_reference_block(
        c.op, c, inputs, parameters, chunks, chunk,
        [&](std::int64_t first, std::int64_t, Dense& values) {
          for (std::size_t k = 0; k < checked.size(); ++k) {
            const TensorSpec& spec = *checked[k];
            const std::vector<double>& want = at(values, spec.tensor);
            if (spec.role == Role::gradient) {
              std::vector<double>& sum = at(sums, spec.tensor);
              sum.resize(want.size(), 0.0);
              for (std::size_t i = 0; i < want.size(); ++i)
                sum[i] += want[i];
              continue;
            }
            const bool written_over_input = c.in_place && spec.in_place_over.has_value();
            merge(chunk_reports[k],
                  compare_rows(at(results, spec.tensor), first, want,
                               tolerance_for(dtype_of(spec, c), output_kind(spec.role)),
                               name_of(spec.tensor), !written_over_input));
          }
        });
  });
  std::vector<CompareReport> merged;
  for (std::size_t k = 0; k < checked.size(); ++k) {
    const TensorSpec& spec = *checked[k];
    const Tolerance tolerance =
        tolerance_for(dtype_of(spec, c), output_kind(spec.role), c.shape.rows);
    if (spec.role == Role::gradient) {
      // Summed chunk by chunk in row order: the same float64 result on any number of threads.
      std::vector<double> sum(static_cast<std::size_t>(c.shape.cols), 0.0);
      for (const Dense& partial : partial_sums) {
        const std::vector<double>& p = at(partial, spec.tensor);
        for (std::size_t i = 0; i < p.size(); ++i)
          sum[i] += p[i];
      }
      merged.push_back(compare(at(results, spec.tensor), sum, tolerance, name_of(spec.tensor)));
      continue;
    }
    CompareReport report;
    report.what = name_of(spec.tensor);
    report.tolerance = tolerance;
    for (const auto& chunk_reports : reports)
      merge(report, chunk_reports[k]);
    merged.push_back(std::move(report));
  }
  return merged;
}

}  // namespace normlab
