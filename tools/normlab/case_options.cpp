// SPDX-License-Identifier: Apache-2.0
#include "case_options.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "dispatcher.hpp"

namespace normlab::tool {

const char* const kCaseOptionsUsage =
    "  OP: rmsnorm, layernorm, add_rmsnorm, add_layernorm, rmsnorm_backward or\n"
    "      layernorm_backward\n"
    "  --dtype fp32|fp16|bf16    x, y and the residuals (default fp32)\n"
    "  --weight-dtype same|fp32|fp16|bf16\n"
    "                            weight and bias in the input dtype (default), in fp32, or\n"
    "                            with fp32 inputs in fp16 or bf16\n"
    "  --dy-dtype same|fp32|fp16|bf16\n"
    "                            backward: dy in the input dtype (default) or another\n"
    "  --residual-dtype same|fp32\n"
    "                            add + norm: residual and residual_out in the input dtype\n"
    "                            (default), or in fp32 with fp16 or bf16 inputs\n"
    "  --row-stride S            elements between rows (S >= N; default N)\n"
    "  --misalign E              shift every activation's base by E elements, 0 to 63\n"
    "                            (default 0)\n"
    "  --groups G                x's rows in groups of G >= 2 (a head view: G heads of a\n"
    "                            token), the groups apart by G rows and a gap; the norms and\n"
    "                            their backward\n"
    "  --group-gap E             elements after each group of --groups (default: one row\n"
    "                            stride)\n"
    "  --no-weight               no weight (scale 1)\n"
    "  --bias                    a bias (RMSNorm's ops too: y = x * rstd * w + b)\n"
    "  --dresidual               backward: add a residual gradient into dx (fused add + norm)\n"
    "  --gemma                   scale by (1 + w)\n"
    "  --eps E                   >= 0 and finite as a float (default 1e-5)\n"
    "  --in-place                y over x; for add + norm, the new residual over the old;\n"
    "                            backward: dx over dy\n";

bool CaseOptions::take(CommandLine& line) {
  if (line.is("--op")) {
    op_ = parse_op(line.value(), "--op");
    if (*op_ == Op::copy) {
      refuse_option("--op",
                    "must be rmsnorm, layernorm, add_rmsnorm, add_layernorm, "
                    "rmsnorm_backward or layernorm_backward");
    }
  } else if (line.is("--dtype")) {
    dtype_ = parse_dtype(line.value(), "--dtype");
  } else if (line.is("--weight-dtype")) {
    const std::string text = line.value();
    weight_dtype_ =
        text == "same" ? std::nullopt : std::optional(parse_dtype(text, "--weight-dtype"));
  } else if (line.is("--dy-dtype")) {
    const std::string text = line.value();
    dy_dtype_ = text == "same" ? std::nullopt : std::optional(parse_dtype(text, "--dy-dtype"));
  } else if (line.is("--residual-dtype")) {
    const std::string text = line.value();
    residual_dtype_ =
        text == "same" ? std::nullopt : std::optional(parse_dtype(text, "--residual-dtype"));
  } else if (line.is("--rows")) {
    rows_ = line.integer(0);
  } else if (line.is("--cols")) {
    cols_ = line.integer(1);
  } else if (line.is("--row-stride")) {
    row_stride_ = line.integer(1);
  } else if (line.is("--misalign")) {
    misalign_ = line.integer(0, 63);
  } else if (line.is("--groups")) {
    groups_ = line.integer(2);
  } else if (line.is("--group-gap")) {
    group_gap_ = line.integer(0);
  } else if (line.is("--no-weight")) {
    no_weight_ = true;
  } else if (line.is("--bias")) {
    bias_ = true;
  } else if (line.is("--dresidual")) {
    residual_gradient_ = true;
  } else if (line.is("--gemma")) {
    weight_plus_one_ = true;
  } else if (line.is("--eps")) {
    // Judged as a float by the library's own rule (dispatch::validate_eps): 1e39 is infinite
    // there. A value that is not 0 but rounds to 0 as a float (1e-50) is refused here: the
    // call would run with another eps than the one asked for.
    const double given = line.number();
    eps_ = static_cast<float>(given);
    if (given != 0.0 && eps_ == 0.0f)
      refuse_option("--eps", "is 0 as a float (" + std::to_string(given) + " underflows)");
    try {
      dispatch::validate_eps(eps_);
    } catch (const std::invalid_argument& error) {
      refuse_option("--eps", std::string("as a float is refused: ") + error.what());
    }
  } else if (line.is("--in-place")) {
    in_place_ = true;
  } else {
    return false;
  }
  return true;
}

Case CaseOptions::finish(Case c) const {
  if (!op_) refuse_option("--op", "is required");
  if (!rows_) refuse_option("--rows", "is required");
  if (!cols_) refuse_option("--cols", "is required");
  if (row_stride_ && *row_stride_ < *cols_) {
    refuse_option("--row-stride", "must be >= --cols (got " + std::to_string(*row_stride_) + " < " +
                                      std::to_string(*cols_) + ")");
  }
  // Every byte offset of a tensor (and of its float64 reference) must fit 64 bits.
  const std::int64_t stride = row_stride_.value_or(*cols_);
  if (*rows_ > 0 && stride > std::numeric_limits<std::int64_t>::max() / 16 / *rows_) {
    refuse_option("--rows", "times the row stride (" + std::to_string(*rows_) + " x " +
                                std::to_string(stride) +
                                ") is more elements than can be addressed");
  }
  if (group_gap_ && !groups_) refuse_option("--group-gap", "needs --groups");
  const std::int64_t gap = group_gap_.value_or(stride);
  if (groups_) {
    if (is_add(*op_)) {
      refuse_option("--groups", std::string("needs a norm or its backward: ") + name_of(*op_) +
                                    " reads x one stride a row");
    }
    if (in_place_ && !is_backward(*op_))
      refuse_option("--groups", "y cannot lie over x whose rows are in groups (--in-place)");
    // The groups' elements, as the rows' above.
    const std::int64_t most = std::numeric_limits<std::int64_t>::max() / 16;
    const std::int64_t groups = (*rows_ + *groups_ - 1) / *groups_;
    if (*groups_ > most / stride || gap > most - *groups_ * stride ||
        (groups > 0 && *groups_ * stride + gap > most / groups)) {
      refuse_option("--groups", "with its gap places x's rows past what can be addressed");
    }
  }
  if (residual_gradient_ && !is_backward(*op_))
    refuse_option("--dresidual", "needs --op rmsnorm_backward or layernorm_backward");
  if (dy_dtype_ && !is_backward(*op_))
    refuse_option("--dy-dtype", "needs --op rmsnorm_backward or layernorm_backward");
  if (residual_dtype_ && !is_add(*op_))
    refuse_option("--residual-dtype", "needs --op add_rmsnorm or add_layernorm");
  if (residual_dtype_ && *residual_dtype_ != dtype_ && *residual_dtype_ != DType::f32) {
    refuse_option("--residual-dtype", std::string("must be same or fp32 with --dtype ") +
                                          name_of(dtype_) + " (got " + name_of(*residual_dtype_) +
                                          ")");
  }
  const DType weight_dtype = weight_dtype_.value_or(dtype_);
  if (weight_dtype != dtype_ && weight_dtype != DType::f32 && dtype_ != DType::f32) {
    refuse_option("--weight-dtype", std::string("must be same or fp32 with --dtype ") +
                                        name_of(dtype_) + " (got " + name_of(weight_dtype) + ")");
  }
  if (weight_plus_one_ && no_weight_)
    refuse_option("--gemma", "scales by (1 + w) and needs a weight");
  c.op = *op_;
  c.shape = {.rows = *rows_,
             .cols = *cols_,
             .dtype = dtype_,
             .weight_dtype = weight_dtype,
             .weight = !no_weight_,
             .bias = bias_,
             .dy_dtype = dy_dtype_,
             .residual_dtype = residual_dtype_};
  c.pad = stride - *cols_;
  c.misalign = misalign_;
  c.group_rows = groups_.value_or(0);
  c.group_gap = groups_ ? gap : 0;
  c.eps = eps_;
  c.weight_plus_one = weight_plus_one_;
  c.in_place = in_place_;
  c.residual_gradient = residual_gradient_;
  return c;
}

}  // namespace normlab::tool
