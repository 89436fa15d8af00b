// SPDX-License-Identifier: Apache-2.0
// Bytes models: what each op must move at the least.
#include "normlab_catch.hpp"

#include "normlab/ops.hpp"

using normlab::DType;
using normlab::Op;

TEST_CASE("a norm moves 2*M*N*sizeof(T) plus its parameters", "[ops]") {
  const normlab::Shape s{
      .rows = 2048, .cols = 8192, .dtype = DType::f32, .weight_dtype = DType::f32};
  CHECK(normlab::bytes_moved(Op::copy, s) == 2.0 * 2048 * 8192 * 4);
  CHECK(normlab::bytes_moved(Op::rmsnorm, s) == 2.0 * 2048 * 8192 * 4 + 8192 * 4);
  normlab::Shape ln = s;
  ln.bias = true;
  CHECK(normlab::bytes_moved(Op::layernorm, ln) == 2.0 * 2048 * 8192 * 4 + 2 * 8192 * 4);
}

TEST_CASE("add + norm moves 4*M*N*sizeof(T) plus its parameters", "[ops]") {
  const normlab::Shape s{
      .rows = 16384, .cols = 4096, .dtype = DType::bf16, .weight_dtype = DType::f32};
  CHECK(normlab::bytes_moved(Op::add_rmsnorm, s) == 4.0 * 16384 * 4096 * 2 + 4096 * 4);
}

TEST_CASE("backward reads x and dy, writes dx, and moves parameters and statistics", "[ops]") {
  const normlab::Shape s{.rows = 10,
                         .cols = 100,
                         .dtype = DType::f16,
                         .weight_dtype = DType::f16,
                         .weight = true,
                         .bias = true};
  CHECK(normlab::bytes_moved(Op::rmsnorm_backward, s) ==
        3.0 * 10 * 100 * 2 + 2 * (2 * 100 * 2) + 10 * 4);
  CHECK(normlab::bytes_moved(Op::layernorm_backward, s) ==
        3.0 * 10 * 100 * 2 + 2 * (2 * 100 * 2) + 2 * 10 * 4);
  // dy in its own dtype (autocast): fp32 dy with fp16 x reads 4 bytes an element of it.
  normlab::Shape mixed = s;
  mixed.dy_dtype = DType::f32;
  CHECK(normlab::bytes_moved(Op::rmsnorm_backward, mixed) ==
        2.0 * 10 * 100 * 2 + 10 * 100 * 4 + 2 * (2 * 100 * 2) + 10 * 4);
}

TEST_CASE("op and dtype names round-trip, and bad names are refused by argument", "[ops]") {
  for (Op op : {Op::copy, Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    CHECK(normlab::parse_op(normlab::name_of(op)) == op);
  }
  for (DType d : {DType::f32, DType::f16, DType::bf16})
    CHECK(normlab::parse_dtype(normlab::name_of(d)) == d);
  CHECK_THROWS_WITH(normlab::parse_op("rms", "--op"), Catch::Contains("'--op'"));
  CHECK_THROWS_WITH(normlab::parse_dtype("fp8", "--dtype"), Catch::Contains("'--dtype'"));
}

// ---- The op tables (op_tensors.hpp) and the host side of a case that walks them.

#include <set>

#include "normlab/op_tensors.hpp"
#include "normlab/reference.hpp"
#include "normlab/runner.hpp"

using normlab::Role;
using normlab::Tensor;
using normlab::TensorSpec;

namespace {

constexpr Op kTabled[] = {
    Op::copy,          Op::rmsnorm,          Op::layernorm,         Op::add_rmsnorm,
    Op::add_layernorm, Op::rmsnorm_backward, Op::layernorm_backward};

const TensorSpec* find(Op op, Tensor tensor) {
  for (const TensorSpec& spec : normlab::tensors_of(op)) {
    if (spec.tensor == tensor) return &spec;
  }
  return nullptr;
}

// Every tensor the case has, presence flags on: weight, bias where the op may take one (the
// RMSNorm ops too), statistics for forward ops, dresidual for backward ones.
normlab::Case full_case(Op op, std::int64_t rows, std::int64_t cols) {
  normlab::Case c = normlab::default_case(op, rows, cols);
  c.shape.bias = normlab::may_take_bias(op);
  c.statistics = normlab::is_forward_norm(op);
  c.residual_gradient = normlab::is_backward(op);
  c.pad = 3;
  return c;
}

}  // namespace

TEST_CASE("every op's table is consistent: inputs first, each result has a reference",
          "[ops][tables]") {
  for (Op op : kTabled) {
    INFO(normlab::name_of(op));
    std::set<Tensor> seen;
    bool results_started = false;
    int results = 0;
    for (const TensorSpec& spec : normlab::tensors_of(op)) {
      CHECK(seen.insert(spec.tensor).second);  // each tensor once
      if (spec.role == Role::input) {
        CHECK_FALSE(results_started);
      } else {
        results_started = true;
        ++results;
      }
      if (spec.in_place_over) {
        // Only a result may be written over an input, and only one of its extent and dtype.
        const TensorSpec* over = find(op, *spec.in_place_over);
        REQUIRE(over != nullptr);
        CHECK(spec.role == Role::output);
        CHECK(over->role == Role::input);
        CHECK(over->extent == spec.extent);
        // dy's dtype is the activations' unless the call names another, and then no kernel
        // writes dx over it (KernelEntry::refusal).
        CHECK((over->element == spec.element || (over->element == normlab::Element::incoming &&
                                                 spec.element == normlab::Element::activation)));
        CHECK(over->presence == normlab::Presence::always);
      }
      // Statistics are one fp32 per row; gradients one value per column in the parameter dtype.
      if (spec.role == Role::statistic) CHECK(spec.extent == normlab::Extent::per_row);
      if (spec.role == Role::gradient) CHECK(spec.extent == normlab::Extent::row_vector);
    }
    CHECK(results > 0);
    // The reference fills every result of a case with every tensor: none is compared with
    // nothing, and nothing is left unreferenced.
    const normlab::Case c = full_case(op, 5, 7);
    const auto inputs = normlab::make_inputs(c);
    const auto results_host = normlab::make_results(c);
    const auto reports = normlab::compare_results(c, inputs, results_host);
    CHECK(static_cast<int>(reports.size()) == results);
    for (const auto& report : reports) {
      INFO(report.what);
      CHECK(report.checked > 0);
      CHECK(report.unwritten == report.checked);  // poisoned results, nothing written
    }
  }
}

TEST_CASE("the backward tables take the saved statistics and give parameter gradients",
          "[ops][tables]") {
  CHECK(find(Op::rmsnorm_backward, Tensor::saved_rstd) != nullptr);
  CHECK(find(Op::rmsnorm_backward, Tensor::saved_mean) == nullptr);
  CHECK(find(Op::layernorm_backward, Tensor::saved_mean) != nullptr);
  CHECK(find(Op::layernorm_backward, Tensor::dbias)->role == Role::gradient);
  CHECK(find(Op::rmsnorm_backward, Tensor::dweight)->role == Role::gradient);
  CHECK(normlab::output_kind(Role::gradient) == normlab::OutputKind::sum_over_rows);
  CHECK(normlab::output_kind(Role::statistic) == normlab::OutputKind::row_statistic);
  CHECK(normlab::output_kind(Role::output) == normlab::OutputKind::element);
}

namespace {

// Writes @p values (dense rows x cols) into @p m.
void write_dense(normlab::HostMatrix& m, const std::vector<double>& values) {
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    for (std::int64_t col = 0; col < m.cols(); ++col)
      m.set(r, col, values[static_cast<std::size_t>(r * m.cols() + col)]);
  }
}

struct BackwardRun {
  normlab::Case c;
  normlab::HostTensors inputs, results;
  normlab::ReferenceBackward want;
};

// What a correct LayerNorm backward kernel would return, from the float64 reference on the
// same inputs (rounded to the tensors' dtypes as a kernel stores them).
BackwardRun correct_layernorm_backward(DType dtype) {
  BackwardRun run;
  run.c = normlab::default_case(Op::layernorm_backward, 300, 129, dtype);
  run.c.residual_gradient = true;
  run.inputs = normlab::make_inputs(run.c);
  run.results = normlab::make_results(run.c);
  const auto x = at(run.inputs, Tensor::x).to_dense();
  const auto dy = at(run.inputs, Tensor::dy).to_dense();
  const auto dres = at(run.inputs, Tensor::dresidual).to_dense();
  const auto w = at(run.inputs, Tensor::weight).to_dense();
  run.want =
      normlab::layernorm_backward(dy, x, {.rows = 300, .cols = 129, .eps = 1e-5, .weight = w});
  for (std::size_t i = 0; i < run.want.dx.size(); ++i)
    run.want.dx[i] += dres[i];
  run.want.dbias.assign(129, 0.0);
  for (std::size_t i = 0; i < dy.size(); ++i)
    run.want.dbias[i % 129] += dy[i];
  write_dense(at(run.results, Tensor::dx), run.want.dx);
  write_dense(at(run.results, Tensor::dweight), run.want.dweight);
  write_dense(at(run.results, Tensor::dbias), run.want.dbias);
  return run;
}

bool all_pass(const std::vector<normlab::CompareReport>& reports, const char* what) {
  bool ok = true;
  for (const auto& r : reports) {
    if (r.what == what) ok = ok && r.passed();
  }
  return ok;
}

}  // namespace

TEST_CASE("the streamed backward comparison passes the reference and fails its bugs",
          "[ops][tables]") {
  for (DType dtype : {DType::f32, DType::bf16}) {
    INFO(normlab::name_of(dtype));
    BackwardRun run = correct_layernorm_backward(dtype);
    const auto good = normlab::compare_results(run.c, run.inputs, run.results);
    for (const auto& r : good) {
      INFO(r.describe());
      CHECK(r.passed());
    }
    SECTION("dweight missing the last row fails") {
      const auto x = at(run.inputs, Tensor::x).to_dense(299, 1);
      const auto dy = at(run.inputs, Tensor::dy).to_dense(299, 1);
      const double mean = at(run.inputs, Tensor::saved_mean).at(299, 0);
      const double rstd = at(run.inputs, Tensor::saved_rstd).at(299, 0);
      auto& dweight = at(run.results, Tensor::dweight);
      for (int col = 0; col < 129; ++col)
        dweight.set(0, col, run.want.dweight[col] - dy[col] * (x[col] - mean) * rstd);
      CHECK_FALSE(all_pass(normlab::compare_results(run.c, run.inputs, run.results), "dweight"));
    }
    SECTION("dx without dresidual fails") {
      const auto dres = at(run.inputs, Tensor::dresidual).to_dense();
      auto dx = run.want.dx;
      for (std::size_t i = 0; i < dx.size(); ++i)
        dx[i] -= dres[i];
      write_dense(at(run.results, Tensor::dx), dx);
      CHECK_FALSE(all_pass(normlab::compare_results(run.c, run.inputs, run.results), "dx"));
    }
  }
}

namespace {

// The float64 RMSNorm backward of @p run's inputs as a kernel would return it, with dy first
// passed through @p dy_as (a kernel's reading of it) and dweight summed over rows by
// @p add (a kernel's accumulation): the reference when both are exact.
void rmsnorm_backward_as(BackwardRun& run, double (*dy_as)(double), double (*add)(double, double)) {
  const std::int64_t rows = run.c.shape.rows, cols = run.c.shape.cols;
  const auto x = at(run.inputs, Tensor::x).to_dense();
  auto dy = at(run.inputs, Tensor::dy).to_dense();
  for (double& v : dy)
    v = dy_as(v);
  const auto w = at(run.inputs, Tensor::weight).to_dense();
  run.want =
      normlab::rmsnorm_backward(dy, x, {.rows = rows, .cols = cols, .eps = run.c.eps, .weight = w});
  std::vector<double> dweight(static_cast<std::size_t>(cols), 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const double rstd = at(run.inputs, Tensor::saved_rstd).at(r, 0);
    for (std::int64_t col = 0; col < cols; ++col) {
      const auto i = static_cast<std::size_t>(r * cols + col);
      dweight[static_cast<std::size_t>(col)] =
          add(dweight[static_cast<std::size_t>(col)], dy[i] * x[i] * rstd);
    }
  }
  write_dense(at(run.results, Tensor::dx), run.want.dx);
  write_dense(at(run.results, Tensor::dweight), dweight);
}

BackwardRun mixed_rmsnorm_backward(DType dtype, DType weight_dtype, DType dy_dtype) {
  BackwardRun run;
  run.c = normlab::default_case(Op::rmsnorm_backward, 1000, 129, dtype);
  run.c.shape.weight_dtype = weight_dtype;
  run.c.shape.dy_dtype = dy_dtype;
  run.inputs = normlab::make_inputs(run.c);
  run.results = normlab::make_results(run.c);
  return run;
}

double exactly(double v) {
  return v;
}
double to_bf16(double v) {
  return normlab::round_to(DType::bf16, v);
}
double add_exactly(double a, double b) {
  return a + b;
}
double add_in_bf16(double a, double b) {
  return normlab::round_to(DType::bf16, a + b);
}

}  // namespace

// The checks the GPU tests of the mixed dtypes and of RMSNorm's bias rely on, shown to fail
// what a kernel that gets them wrong would return: the float64 reference passes, and each
// known-wrong result (computed here as such a kernel would) fails.
TEST_CASE("mixed dtypes and RMSNorm's bias: the comparison fails their known-wrong kernels",
          "[ops][tables]") {
  SECTION("fp32 dy with bf16 x, read exactly; rounded to bf16 it fails dweight") {
    BackwardRun run = mixed_rmsnorm_backward(DType::bf16, DType::f32, DType::f32);
    CHECK(at(run.inputs, Tensor::dy).dtype() == DType::f32);
    CHECK(at(run.results, Tensor::dx).dtype() == DType::bf16);
    rmsnorm_backward_as(run, exactly, add_exactly);
    CHECK(all_pass(normlab::compare_results(run.c, run.inputs, run.results), "dweight"));
    CHECK(all_pass(normlab::compare_results(run.c, run.inputs, run.results), "dx"));
    rmsnorm_backward_as(run, to_bf16, add_exactly);
    CHECK_FALSE(all_pass(normlab::compare_results(run.c, run.inputs, run.results), "dweight"));
  }
  SECTION("bf16 dweight of fp32 x summed in fp32 and rounded once; summed in bf16 it fails") {
    BackwardRun run = mixed_rmsnorm_backward(DType::f32, DType::bf16, DType::bf16);
    CHECK(at(run.results, Tensor::dweight).dtype() == DType::bf16);
    rmsnorm_backward_as(run, exactly, add_exactly);
    CHECK(all_pass(normlab::compare_results(run.c, run.inputs, run.results), "dweight"));
    rmsnorm_backward_as(run, exactly, add_in_bf16);
    CHECK_FALSE(all_pass(normlab::compare_results(run.c, run.inputs, run.results), "dweight"));
  }
  SECTION("RMSNorm's bias added; dropped, y fails") {
    normlab::Case c = normlab::default_case(Op::rmsnorm, 64, 129, DType::bf16);
    c.shape.weight_dtype = DType::f32;
    c.shape.bias = true;
    const auto inputs = normlab::make_inputs(c);
    auto results = normlab::make_results(c);
    const auto weight = at(inputs, Tensor::weight).to_dense();
    const auto bias = at(inputs, Tensor::bias).to_dense();
    const normlab::ReferenceParams params{
        .rows = 64, .cols = 129, .eps = c.eps, .weight = weight, .bias = bias};
    const auto x = at(inputs, Tensor::x).to_dense();
    write_dense(at(results, Tensor::y), normlab::rmsnorm_forward(x, params).y);
    CHECK(all_pass(normlab::compare_results(c, inputs, results), "y"));
    normlab::ReferenceParams without_bias = params;
    without_bias.bias = {};
    write_dense(at(results, Tensor::y), normlab::rmsnorm_forward(x, without_bias).y);
    CHECK_FALSE(all_pass(normlab::compare_results(c, inputs, results), "y"));
  }
}

TEST_CASE("saved statistics are the forward's, in fp32", "[ops][tables]") {
  const normlab::Case c = normlab::default_case(Op::layernorm_backward, 70, 33);
  const auto inputs = normlab::make_inputs(c);
  const auto forward =
      normlab::layernorm_forward(at(inputs, Tensor::x).to_dense(), {.rows = 70, .cols = 33});
  for (int r = 0; r < 70; ++r) {
    CHECK(at(inputs, Tensor::saved_mean).at(r, 0) == Approx(forward.mean[r]).epsilon(1e-7));
    CHECK(at(inputs, Tensor::saved_rstd).at(r, 0) == Approx(forward.rstd[r]).epsilon(1e-7));
  }
}

TEST_CASE("is_forward_norm: the four forward norms and nothing else", "[ops]") {
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm})
    CHECK(normlab::is_forward_norm(op));
  for (Op op : {Op::copy, Op::rmsnorm_backward, Op::layernorm_backward})
    CHECK_FALSE(normlab::is_forward_norm(op));
}

// What the GPU tests of an fp32 residual stream rely on: its tensors are fp32 and the reference
// takes h unrounded; a kernel that rounds h to x's dtype before the statistics (and stores it so)
// fails residual_out, and on rows of mean 64 LayerNorm's y too.
TEST_CASE("an fp32 residual stream: the comparison fails h rounded to x's dtype", "[ops][tables]") {
  normlab::Case c = normlab::default_case(Op::add_layernorm, 64, 1000, DType::bf16);
  c.shape.residual_dtype = DType::f32;
  c.shape.bias = true;
  c.input.mean = 64.0;
  const auto inputs = normlab::make_inputs(c);
  auto results = normlab::make_results(c);
  CHECK(at(inputs, Tensor::residual).dtype() == DType::f32);
  CHECK(at(results, Tensor::residual_out).dtype() == DType::f32);
  CHECK(at(results, Tensor::y).dtype() == DType::bf16);
  const auto weight = at(inputs, Tensor::weight).to_dense();
  const auto bias = at(inputs, Tensor::bias).to_dense();
  const normlab::ReferenceParams params{
      .rows = 64, .cols = 1000, .eps = c.eps, .weight = weight, .bias = bias};
  const auto x = at(inputs, Tensor::x).to_dense();
  const auto r = at(inputs, Tensor::residual).to_dense();
  auto run = [&](double (*rounding)(double)) {
    const normlab::ReferenceForward forward =
        normlab::add_layernorm_forward(x, r, params, rounding);
    write_dense(at(results, Tensor::y), forward.y);
    write_dense(at(results, Tensor::residual_out), forward.residual);
    return normlab::compare_results(c, inputs, results);
  };
  const auto exact = run(nullptr);
  CHECK(all_pass(exact, "y"));
  CHECK(all_pass(exact, "residual_out"));
  const auto rounded = run([](double v) { return normlab::round_to(DType::bf16, v); });
  CHECK_FALSE(all_pass(rounded, "residual_out"));
  CHECK_FALSE(all_pass(rounded, "y"));
  // The bytes model reads and writes the stream in fp32.
  CHECK(normlab::bytes_moved(Op::add_rmsnorm, c.shape) ==
        2.0 * 64 * 1000 * 2 + 2.0 * 64 * 1000 * 4 + 2 * 1000 * 2);
}
