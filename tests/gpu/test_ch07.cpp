// SPDX-License-Identifier: Apache-2.0
// Chapter 07 on the GPU: every op in every dtype and weight dtype (fp32 rows with 16-bit
// parameters too, which give the fp32 launch's bits) over ragged shapes; every
// option (strides, misalignment, in place, (1 + w), no weight, bias, eps, statistics); each
// tensor with its own stride and alignment; the widths where the kernel changes path; the point
// where results are rounded to the output dtype; and a refused call that launches nothing.
#include "normlab_catch.hpp"

#include <cstdint>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ch07_cases.hpp"
#include "general_forward.hpp"
#include "grading.hpp"
#include "hand_case.hpp"
#include "norm_cases.hpp"
#include "normlab/buffer.hpp"
#include "normlab/kernel.hpp"
#include "normlab/random.hpp"
#include "normlab/reference.hpp"
#include "normlab/registry.hpp"

namespace {

using namespace normlab;

constexpr Op kOps[] = {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm};

using hand_case::DTypes;
using hand_case::HandCase;
using hand_case::HandResult;

constexpr DTypes kDTypes[] = {{DType::f32, DType::f32},  {DType::f32, DType::f16},
                              {DType::f32, DType::bf16}, {DType::f16, DType::f16},
                              {DType::f16, DType::f32},  {DType::bf16, DType::bf16},
                              {DType::bf16, DType::f32}};

const KernelEntry& entry(Op op) {
  for (const KernelEntry& kernel : kernel_registry()) {
    if (kernel.chapter == 7 && kernel.op == op) return kernel;
  }
  throw std::logic_error(std::string("no chapter 07 kernel for ") + name_of(op));
}

Case make_case(Op op, DTypes d, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(op, rows, cols, d.dtype);
  c.shape.weight_dtype = d.weight_dtype;
  c.input.seed = seed;
  return c;
}

using norm_cases::require_all_pass;

// Chapter 07 through hand_case::run_by_hand.
HandResult run_by_hand(const HandCase& hc, Rounding residual_rounding) {
  return hand_case::run_by_hand(hc, residual_rounding, kernels::forward, "kernels::forward");
}

}  // namespace

TEST_CASE("every op, dtype and weight dtype over ragged shapes", "[ch07]") {
  for (Op op : kOps) {
    std::vector<Case> cases;
    std::uint64_t seed = 1;
    for (const DTypes& types : kDTypes) {
      for (std::int64_t rows : {0, 1, 7, 33}) {
        for (std::int64_t cols : ch07_cases::kRaggedCols)
          cases.push_back(make_case(op, types, rows, cols, seed++));
      }
    }
    require_all_pass(entry(op), cases);
  }
}

TEST_CASE("every option: strides, misalignment, in place, (1 + w), parameters, eps, statistics",
          "[ch07]") {
  struct Variant {
    const char* name;
    std::function<bool(Case&)> apply;  // false: does not apply to this op
  };
  const std::vector<Variant> variants = {
      {"rows 16-byte strided",
       [](Case& c) {
         c.pad = 8;
         return true;
       }},
      {"odd stride: every row its own alignment",
       [](Case& c) {
         c.pad = 5;
         return true;
       }},
      {"misaligned by 1",
       [](Case& c) {
         c.misalign = 1;
         return true;
       }},
      {"misaligned by 3, odd stride",
       [](Case& c) {
         c.misalign = 3;
         c.pad = 5;
         return true;
       }},
      {"misaligned by 7",
       [](Case& c) {
         c.misalign = 7;
         return true;
       }},
      {"in place",
       [](Case& c) {
         c.in_place = true;
         return true;
       }},
      {"in place, misaligned, strided",
       [](Case& c) {
         c.in_place = true;
         c.misalign = 5;
         c.pad = 3;
         return true;
       }},
      {"(1 + w)",
       [](Case& c) {
         c.weight_plus_one = true;
         return true;
       }},
      {"no weight, no bias",
       [](Case& c) {
         c.shape.weight = false;
         c.shape.bias = false;
         return true;
       }},
      {"bias without weight (RMSNorm's too)",
       [](Case& c) {
         c.shape.weight = false;
         c.shape.bias = true;
         return true;
       }},
      {"RMSNorm with weight and bias",
       [](Case& c) {
         c.shape.bias = true;
         return !is_layernorm(c.op);
       }},
      {"weight without bias",
       [](Case& c) {
         c.shape.bias = false;
         return is_layernorm(c.op);
       }},
      {"eps = 0 (a LayerNorm row of one element would divide 0 by 0)",
       [](Case& c) {
         c.eps = 0.0f;
         return !(is_layernorm(c.op) && c.shape.cols == 1);
       }},
      {"eps = 1",
       [](Case& c) {
         c.eps = 1.0f;
         return true;
       }},
      {"statistics",
       [](Case& c) {
         c.statistics = true;
         return true;
       }},
      {"rows shifted to mean 100",
       [](Case& c) {
         c.input.distribution = Distribution::uniform;
         c.input.mean = 100.0;
         return true;
       }},
      {"heavy-tailed rows",
       [](Case& c) {
         c.input.distribution = Distribution::heavy_tailed;
         return true;
       }},
  };
  std::uint64_t seed = 1000;
  for (Op op : kOps) {
    for (const Variant& variant : variants) {
      std::vector<Case> cases;
      for (const DTypes& types : kDTypes) {
        for (std::int64_t rows : {1, 5}) {
          for (std::int64_t cols : {1, 9, 1031, 4104}) {
            Case c = make_case(op, types, rows, cols, seed++);
            if (variant.apply(c)) cases.push_back(c);
          }
        }
      }
      if (cases.empty()) continue;
      INFO(variant.name);
      require_all_pass(entry(op), cases);
    }
  }
}

TEST_CASE("the widths where the kernel changes path", "[ch07]") {
  // 16-bit: aligned rows up to 16384 keep 4 vectors a thread, up to 24576 eight, wider rows
  // stream; misaligned rows keep 4 vectors up to about 16370 and stream beyond. fp32: half.
  struct Width {
    DType dtype;
    std::int64_t cols;
    std::int64_t misalign;
  };
  const Width widths[] = {{DType::bf16, 16384, 0}, {DType::bf16, 16392, 0}, {DType::bf16, 24576, 0},
                          {DType::bf16, 24584, 0}, {DType::bf16, 40000, 0}, {DType::bf16, 16369, 3},
                          {DType::bf16, 16385, 3}, {DType::f16, 16384, 0},  {DType::f16, 24576, 0},
                          {DType::f16, 30001, 1},  {DType::f32, 8192, 0},   {DType::f32, 8196, 0},
                          {DType::f32, 12288, 0},  {DType::f32, 12292, 0},  {DType::f32, 8185, 1},
                          {DType::f32, 8193, 1}};
  for (Op op : kOps) {
    std::vector<Case> cases;
    std::uint64_t seed = 2000;
    for (const Width& width : widths) {
      std::vector<DType> weight_dtypes{width.dtype};
      if (width.dtype != DType::f32) weight_dtypes.push_back(DType::f32);
      for (DType weight_dtype : weight_dtypes) {
        Case c = make_case(op, {width.dtype, weight_dtype}, 3, width.cols, seed++);
        c.misalign = width.misalign;
        cases.push_back(c);
        c.in_place = true;
        c.pad = 3;
        c.statistics = true;
        cases.push_back(c);
      }
    }
    require_all_pass(entry(op), cases);
  }
}

TEST_CASE("each tensor with its own stride and alignment", "[ch07]") {
  // x, residual, y and h each strided and shifted differently: x sets the chunk grid, the
  // others move element by element where their alignment differs.
  std::uint64_t seed = 3000;
  for (Op op : kOps) {
    for (const DTypes& types : kDTypes) {
      for (std::int64_t cols : {1, 13, 1000, 4099}) {
        for (bool in_place : {false, true}) {
          HandCase hc{.op = op,
                      .types = types,
                      .rows = 6,
                      .cols = cols,
                      .x = {.pad = 3, .misalign = 1},
                      .residual = {.pad = 0, .misalign = 2},
                      .y = {.pad = 8, .misalign = 0},
                      .residual_out = {.pad = 1, .misalign = 3},
                      .weight_misalign = 1,
                      .residual_in_place = in_place,
                      .seed = seed++};
          const HandResult result = run_by_hand(hc, rounding_for(types.dtype));
          INFO(name_of(op) << " " << name_of(types.dtype) << " weight "
                           << name_of(types.weight_dtype) << " cols " << cols
                           << (in_place ? " in place" : "") << "\n"
                           << result.describe());
          CHECK(result.passed());
        }
        // The same strides with every base 16-byte aligned: x and y take the vector path.
        HandCase aligned{.op = op,
                         .types = types,
                         .rows = 6,
                         .cols = cols,
                         .x = {.pad = 8},
                         .residual = {.pad = 16},
                         .y = {.pad = 0},
                         .residual_out = {.pad = 24},
                         .seed = seed++};
        const HandResult result = run_by_hand(aligned, rounding_for(types.dtype));
        INFO(name_of(op) << " " << name_of(types.dtype) << " aligned, cols " << cols << "\n"
                         << result.describe());
        CHECK(result.passed());
      }
    }
  }
}

// The rounding point: y is computed in fp32 and rounded to the dtype once, and for add + norm
// the norm is taken of h rounded to the dtype (as stored). Then almost every y is the correctly
// rounded reference, bit for bit; fp32 arithmetic flips only values within about 1e-6 of a
// rounding boundary. A kernel that normalised the unrounded fp32 h, or rounded x_hat before
// multiplying by the weight, would miss a quarter of them. The second half of the test shows
// that the measure can tell: against a reference that keeps h exact, far fewer match.
TEST_CASE("results are rounded once, and add + norm normalises the rounded h", "[ch07]") {
  auto exact_share = [](const HostMatrix& got, const std::vector<double>& want) {
    std::int64_t exact = 0;
    for (std::int64_t r = 0; r < got.rows(); ++r) {
      for (std::int64_t c = 0; c < got.cols(); ++c) {
        const double expected =
            round_to(got.dtype(), want[static_cast<std::size_t>(r * got.cols() + c)]);
        exact += got.at(r, c) == expected;
      }
    }
    return static_cast<double>(exact) / static_cast<double>(got.rows() * got.cols());
  };
  for (Op op : kOps) {
    for (DTypes types : {DTypes{DType::bf16, DType::bf16}, DTypes{DType::bf16, DType::f32},
                         DTypes{DType::f16, DType::f16}}) {
      const HandCase hc{.op = op, .types = types, .rows = 64, .cols = 4096, .seed = 4000};
      const HandResult rounded = run_by_hand(hc, rounding_for(types.dtype));
      INFO(name_of(op) << " " << name_of(types.dtype) << " weight " << name_of(types.weight_dtype));
      REQUIRE(rounded.passed());
      const double share = exact_share(rounded.y, rounded.want.y);
      INFO("share of y equal to the correctly rounded reference: " << share);
      CHECK(share >= 0.99);
      if (is_add(op)) {
        const HandResult exact_h = run_by_hand(hc, nullptr);
        const double share_exact_h = exact_share(exact_h.y, exact_h.want.y);
        INFO("the same against a reference that normalises the exact h: " << share_exact_h);
        CHECK(share_exact_h < 0.95);
      }
    }
  }
}

TEST_CASE("rows = 0 succeeds; a refused call writes nothing", "[ch07]") {
  for (Op op : kOps)
    CHECK(verify(entry(op), default_case(op, 0, 64, DType::bf16)).passed());
  // eps < 0 is refused: the poisoned output must still be poison (nothing was launched).
  HostMatrix x(DType::bf16, 4, 64), y(DType::bf16, 4, 64);
  fill_random(x, {});
  const PlacedMatrix x_device(x, 0), y_device(y, 0);
  NormCall call{.op = Op::rmsnorm,
                .dtype = DType::bf16,
                .weight_dtype = DType::bf16,
                .rows = 4,
                .cols = 64,
                .eps = -1.0f};
  call.x = x_device.data();
  call.x_stride = 64;
  call.y = y_device.data();
  call.y_stride = 64;
  CHECK_THROWS_WITH(kernels::forward(call, nullptr), Catch::Contains("'eps'"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  y_device.download(y);
  CHECK(y.is_poison(0, 0));
  CHECK(y.is_poison(3, 63));
}

// y (and h) of @p op on fp32 rows with @p parameters' weight and bias, and the same with them
// widened to fp32 first (exact): the same bits, for every path of the launcher.
TEST_CASE("fp32 rows with 16-bit parameters give the fp32 launch's bits", "[ch07]") {
  for (Op op : kOps) {
    for (DType parameters : {DType::f16, DType::bf16}) {
      for (std::int64_t cols : {1, 9, 1031, 4104, 20000}) {
        for (std::int64_t misalign : {0, 1}) {
          INFO(name_of(op) << " " << name_of(parameters) << " cols " << cols << " misalign "
                           << misalign);
          const std::int64_t rows = 7;
          HostMatrix x(DType::f32, rows, cols), r(DType::f32, rows, cols);
          HostMatrix w(parameters, 1, cols), b(parameters, 1, cols);
          fill_random(x, {.seed = 1});
          fill_random(r, {.seed = 2});
          fill_random(w, {.distribution = Distribution::uniform, .mean = 1.0, .seed = 3});
          fill_random(b, {.seed = 4});
          HostMatrix w32(DType::f32, 1, cols), b32(DType::f32, 1, cols);
          for (std::int64_t col = 0; col < cols; ++col) {
            w32.set(0, col, w.at(0, col));
            b32.set(0, col, b.at(0, col));
          }
          const PlacedMatrix xd(x, misalign), rd(r, misalign);
          auto run = [&](const HostMatrix& weight, const HostMatrix& bias) {
            const PlacedMatrix wd(weight, 0), bd(bias, 0);
            PlacedMatrix yd = PlacedMatrix::poisoned_like(x, misalign);
            PlacedMatrix hd = PlacedMatrix::poisoned_like(x, misalign);
            NormCall call{.op = op,
                          .dtype = DType::f32,
                          .weight_dtype = weight.dtype(),
                          .rows = rows,
                          .cols = cols,
                          .x = xd.data(),
                          .x_stride = cols,
                          .y = yd.data(),
                          .y_stride = cols,
                          .weight = wd.data(),
                          .bias = bd.data()};
            if (is_add(op)) {
              call.residual = rd.data();
              call.residual_stride = call.residual_out_stride = cols;
              call.residual_out = hd.data();
            }
            kernels::forward(call, nullptr);
            NORMLAB_CHECK(cudaDeviceSynchronize());
            HostMatrix y(DType::f32, rows, cols), h(DType::f32, rows, cols);
            yd.download(y);
            hd.download(h);
            return std::pair{y.to_dense(), is_add(op) ? h.to_dense() : std::vector<double>{}};
          };
          CHECK(run(w, b) == run(w32, b32));
        }
      }
    }
  }
}

TEST_CASE("chapter 07 passes the bf16 grader", "[ch07]") {
  for (Op op : kOps)
    require_all_pass(entry(op), ch07_cases::bf16_grader(op));
}

namespace {

// A known-wrong fp32 stream: the residual rounded to x's dtype and the call run with one dtype
// (h rounded before its statistics, as with one dtype), residual_out widened back to fp32.
// Host copies: rows * cols elements of every tensor at stride cols.
void rounded_stream(const NormCall& call, cudaStream_t stream) {
  const std::int64_t rows = call.rows, cols = call.cols;
  HostMatrix wide(DType::f32, rows, cols), narrow(call.dtype, rows, cols);
  NORMLAB_CHECK(cudaMemcpy2D(wide.data(), cols * 4, call.residual, call.residual_stride * 4,
                             cols * 4, rows, cudaMemcpyDeviceToHost));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t col = 0; col < cols; ++col)
      narrow.set(r, col, wide.at(r, col));
  const PlacedMatrix residual(narrow, 0);
  PlacedMatrix h = PlacedMatrix::poisoned_like(narrow, 0);
  NormCall same = call;
  same.residual_dtype = std::nullopt;
  same.residual = residual.data();
  same.residual_out = h.data();
  same.residual_stride = same.residual_out_stride = cols;
  kernels::forward(same, stream);
  NORMLAB_CHECK(cudaDeviceSynchronize());
  h.download(narrow);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t col = 0; col < cols; ++col)
      wide.set(r, col, narrow.at(r, col));
  NORMLAB_CHECK(cudaMemcpy2D(call.residual_out, call.residual_out_stride * 4, wide.data(), cols * 4,
                             cols * 4, rows, cudaMemcpyHostToDevice));
}

// add + norm cases with an fp32 stream and @p x_dtype x: ragged widths on every path of the
// launcher (aligned and misaligned registers, streamed past 2048 chunks), strides, misalignment,
// in place, statistics, parameters in x's dtype or fp32, rows of mean 64 (where rounding h to
// x's dtype would lose most of LayerNorm's spread).
std::vector<Case> fp32_stream_cases(Op op, DType x_dtype) {
  std::vector<Case> cases;
  std::uint64_t seed = 40;
  for (std::int64_t cols : {1, 7, 8, 200, 1031, 4096, 16384, 16392, 20001}) {
    for (DType weight_dtype : {x_dtype, DType::f32}) {
      Case c = default_case(op, cols > 4096 ? 3 : 37, cols, x_dtype);
      c.shape.weight_dtype = weight_dtype;
      c.shape.residual_dtype = DType::f32;
      c.shape.bias = is_layernorm(op);
      c.input.seed = ++seed;
      c.statistics = true;
      cases.push_back(c);
      c.pad = 5, c.misalign = 3, c.in_place = true, c.input.seed = ++seed;
      cases.push_back(c);
      c.pad = 0, c.misalign = 0, c.in_place = false, c.statistics = false;
      c.input.mean = 64.0, c.input.seed = ++seed;
      cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace

TEST_CASE("an fp32 residual stream with 16-bit x matches float64, h never rounded", "[ch07]") {
  for (Op op : {Op::add_rmsnorm, Op::add_layernorm})
    for (DType x_dtype : {DType::f16, DType::bf16})
      require_all_pass(entry(op), fp32_stream_cases(op, x_dtype));
}

TEST_CASE("an fp32 stream rounded to x's dtype before its statistics fails", "[ch07]") {
  for (Op op : {Op::add_rmsnorm, Op::add_layernorm}) {
    KernelEntry wrong = entry(op);
    wrong.name = "rounded_stream";
    wrong.launch = rounded_stream;
    for (const Case& c : fp32_stream_cases(op, DType::bf16)) {
      if (c.pad != 0) continue;  // rounded_stream reads rows at stride cols
      INFO(c.describe());
      // rounded h fails the stream's fp32 bar; at mean 64, LayerNorm's y fails bf16's too (past
      // one column: a row of one is its own mean, y its bias however h was rounded).
      const CaseResult result = verify(wrong, c);
      CHECK_FALSE(result.passed());
      if (op == Op::add_layernorm && c.input.mean != 0.0 && c.shape.cols > 1) {
        bool y_failed = false;
        for (const CompareReport& report : result.reports)
          y_failed = y_failed || (report.what == "y" && !report.passed());
        CHECK(y_failed);
      }
    }
  }
}

TEST_CASE("a 16-bit stream with other 16-bit x is refused by name, nothing written", "[ch07]") {
  HostMatrix x(DType::bf16, 2, 64), r(DType::f32, 2, 64);
  const PlacedMatrix xd(x, 0), rd(r, 0);
  PlacedMatrix yd = PlacedMatrix::poisoned_like(x, 0), hd = PlacedMatrix::poisoned_like(r, 0);
  NormCall call{.op = Op::add_rmsnorm,
                .dtype = DType::bf16,
                .weight_dtype = DType::bf16,
                .residual_dtype = DType::f16,
                .rows = 2,
                .cols = 64,
                .x = xd.data(),
                .x_stride = 64,
                .residual = rd.data(),
                .residual_stride = 64,
                .y = yd.data(),
                .y_stride = 64,
                .residual_out = hd.data(),
                .residual_out_stride = 64};
  CHECK_THROWS_WITH(
      kernels::forward(call, nullptr),
      Catch::Contains("residual_dtype") && Catch::Contains("got fp16 with bf16 inputs"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  HostMatrix h(DType::f32, 2, 64);
  hd.download(h);
  CHECK(h.is_poison(1, 63));
}
