// The comparison must catch every way a kernel can be wrong, and say where.
#include "normlab_catch.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "normlab/compare.hpp"
#include "normlab/host_matrix.hpp"
#include "normlab/random.hpp"

using normlab::DType;
using normlab::HostMatrix;

namespace {

// A 3 x 4 matrix with 2 guard elements per row, every element written with want's values.
HostMatrix written(const std::vector<double>& want, DType dtype = DType::f32) {
  HostMatrix m(dtype, 3, 4, 6);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c)
      m.set(r, c, want[r * 4 + c]);
  }
  return m;
}

const std::vector<double> kWant{1, -2, 3, -4, 0.5, 0.25, -0.125, 8, 1e-3, 2e-3, 3e-3, 4e-3};

}  // namespace

TEST_CASE("a correct output passes with its errors reported", "[compare]") {
  const auto report =
      normlab::compare(written(kWant), kWant, normlab::tolerance_for(DType::f32), "y");
  CHECK(report.passed());
  CHECK(report.checked == 12);
  CHECK(report.max_abs_error < 1e-9);  // only the rounding of 1e-3 to fp32
  CHECK_THAT(report.describe(), Catch::Contains("ok"));
}

TEST_CASE("a value outside the tolerance is a mismatch with its row and column", "[compare]") {
  HostMatrix got = written(kWant);
  got.set(2, 1, 2e-3 + 5e-4);
  const auto report = normlab::compare(got, kWant, normlab::tolerance_for(DType::f32), "y");
  CHECK_FALSE(report.passed());
  CHECK(report.mismatches == 1);
  REQUIRE(report.first.size() == 1);
  CHECK(report.first[0].row == 2);
  CHECK(report.first[0].col == 1);
  CHECK_THAT(report.describe(), Catch::Contains("(row 2, col 1)"));
}

TEST_CASE("NaN and Inf written by a kernel are caught", "[compare]") {
  HostMatrix got = written(kWant);
  got.set(0, 0, std::numeric_limits<double>::quiet_NaN());
  got.set(1, 3, std::numeric_limits<double>::infinity());
  const auto report = normlab::compare(got, kWant, normlab::tolerance_for(DType::f32), "y");
  CHECK_FALSE(report.passed());
  CHECK(report.non_finite == 2);
  CHECK(report.unwritten == 0);
}

TEST_CASE("elements a kernel never wrote are caught as unwritten", "[compare]") {
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    HostMatrix got(dtype, 3, 4, 6);  // poisoned, nothing written
    for (int c = 0; c < 4; ++c)
      got.set(0, c, kWant[c]);
    const auto report = normlab::compare(got, kWant, normlab::tolerance_for(dtype), "y");
    CHECK_FALSE(report.passed());
    CHECK(report.unwritten == 8);
    CHECK_THAT(report.describe(), Catch::Contains("unwritten 8"));
  }
}

TEST_CASE("writes past the end of a row land in the guard band and are caught", "[compare]") {
  HostMatrix got = written(kWant);
  got.set(1, 4, 0.0);  // one element past row 1
  const auto report = normlab::compare(got, kWant, normlab::tolerance_for(DType::f32), "y");
  CHECK_FALSE(report.passed());
  CHECK(report.guard_overwrites == 1);
  CHECK(report.mismatches == 0);
  CHECK_THAT(report.describe(), Catch::Contains("guard band) 1"));
}

TEST_CASE("tolerances loosen with the precision of the dtype", "[compare]") {
  CHECK(normlab::tolerance_for(DType::f32).rel < normlab::tolerance_for(DType::f16).rel);
  CHECK(normlab::tolerance_for(DType::f16).rel < normlab::tolerance_for(DType::bf16).rel);
  // Rounding a value to bf16 stays within the bf16 tolerance, and fails the fp32 one.
  const std::vector<double> want{1.0 / 3.0};
  HostMatrix got(DType::bf16, 1, 1);
  got.set(0, 0, want[0]);
  CHECK(normlab::compare(got, want, normlab::tolerance_for(DType::bf16), "y").passed());
  CHECK_FALSE(normlab::compare(got, want, normlab::tolerance_for(DType::f32), "y").passed());
}

TEST_CASE("random inputs are seeded, varied, never all zeros", "[random]") {
  for (auto distribution : {normlab::Distribution::normal, normlab::Distribution::uniform,
                            normlab::Distribution::heavy_tailed}) {
    HostMatrix a(DType::bf16, 4, 257), b(DType::bf16, 4, 257), c(DType::bf16, 4, 257);
    normlab::fill_random(a, {.distribution = distribution, .seed = 5});
    normlab::fill_random(b, {.distribution = distribution, .seed = 5});
    normlab::fill_random(c, {.distribution = distribution, .seed = 6});
    CHECK(a.to_dense() == b.to_dense());
    CHECK(a.to_dense() != c.to_dense());
    for (int r = 0; r < 4; ++r) {
      bool nonzero = false;
      for (int col = 0; col < 257; ++col)
        nonzero = nonzero || a.at(r, col) != 0.0;
      CHECK(nonzero);
    }
  }
  HostMatrix shifted(DType::f32, 1, 100000);
  normlab::fill_random(shifted,
                       {.distribution = normlab::Distribution::uniform, .mean = 1e4, .scale = 1.0});
  double mean = 0.0;
  for (double v : shifted.to_dense())
    mean += v / 100000.0;
  CHECK(mean == Approx(1e4).margin(0.05));
}
