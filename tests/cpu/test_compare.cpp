// SPDX-License-Identifier: Apache-2.0
// The comparison must catch every way a kernel can be wrong, and say where.
#include "normlab_catch.hpp"

#include <cmath>
#include <limits>
#include <span>
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
  for (auto distribution : {normlab::Distribution::normal, normlab::Distribution::shifted,
                            normlab::Distribution::uniform, normlab::Distribution::heavy_tailed}) {
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
  for (auto distribution : {normlab::Distribution::uniform, normlab::Distribution::shifted}) {
    HostMatrix shifted(DType::f32, 1, 100000);
    normlab::fill_random(
        shifted, {.distribution = distribution, .mean = normlab::kShiftedMean, .scale = 1.0});
    double mean = 0.0, square = 0.0;
    for (double v : shifted.to_dense()) {
      mean += v / 100000.0;
      square += v * v / 100000.0;
    }
    CHECK(mean == Approx(1e4).margin(0.05));
    CHECK(square - mean * mean == Approx(1.0).epsilon(0.05));  // scale 1 around the mean
  }
}

TEST_CASE("random values depend on the seed and the row, not on the matrix or the threads",
          "[random]") {
  // Rows are drawn in blocks of kRowsPerSeed, each from its own engine: the first rows of a
  // tall matrix equal those of a short one, whichever thread drew them.
  const std::int64_t rows = normlab::kRowsPerSeed;
  HostMatrix tall(DType::f16, 5 * rows + 3, 40), short_one(DType::f16, rows + 1, 40);
  normlab::fill_random(tall, {.seed = 9});
  normlab::fill_random(short_one, {.seed = 9});
  CHECK(tall.to_dense(0, rows + 1) == short_one.to_dense());
  CHECK(tall.to_dense(0, 1) != tall.to_dense(rows, 1));  // blocks differ
}

TEST_CASE("distributions parse by name and bad names are refused by argument", "[random]") {
  using normlab::Distribution;
  for (auto d : {Distribution::normal, Distribution::shifted, Distribution::heavy_tailed})
    CHECK(normlab::parse_distribution(normlab::name_of(d)) == d);
  CHECK_THROWS_WITH(normlab::parse_distribution("gaussian", "--distribution"),
                    Catch::Contains("'--distribution'") && Catch::Contains("gaussian"));
}

TEST_CASE("tolerances per kind: statistics at fp32, sums over rows widen with the rows",
          "[compare]") {
  using normlab::OutputKind;
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    const auto stat = normlab::tolerance_for(dtype, OutputKind::row_statistic);
    CHECK(stat.rel == normlab::tolerance_for(DType::f32).rel);
    const auto sum_few = normlab::tolerance_for(dtype, OutputKind::sum_over_rows, 10);
    const auto sum_many = normlab::tolerance_for(dtype, OutputKind::sum_over_rows, 10000);
    CHECK(sum_many.abs == Approx(1000 * sum_few.abs));
    CHECK(sum_few.rel == normlab::tolerance_for(dtype).rel);  // the stored sum's rounding
    // One dropped row (a term of about 0.64) stands out of the sum's bar on 10000 rows.
    CHECK(sum_many.abs < 0.64 / 5);
  }
}

TEST_CASE("comparing block by block and merging equals comparing at once", "[compare]") {
  HostMatrix got = written(kWant);
  got.set(2, 1, 99.0);  // a mismatch in the last block
  got.set(0, 3, 7.0);   // and one in the first
  const auto whole = normlab::compare(got, kWant, normlab::tolerance_for(DType::f32), "y");
  auto merged = normlab::compare_rows(got, 0, std::span(kWant).first(8),
                                      normlab::tolerance_for(DType::f32), "y");
  normlab::merge(merged, normlab::compare_rows(got, 2, std::span(kWant).subspan(8),
                                               normlab::tolerance_for(DType::f32), "y"));
  CHECK(merged.checked == whole.checked);
  CHECK(merged.mismatches == 2);
  REQUIRE(merged.first.size() == 2);
  CHECK(merged.first[0].row == 0);  // memory order kept
  CHECK(merged.first[1].row == 2);
  CHECK_THROWS(normlab::compare_rows(got, 2, kWant, normlab::tolerance_for(DType::f32), "y"));
}
