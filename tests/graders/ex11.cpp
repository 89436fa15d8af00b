// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 11 (the deferred path's statistics): 1/RMS of fp16 rows 1 to 8200 wide,
// dense (ragged, so unaligned) and padded to 16 bytes with a NaN guard band, against a float64
// reference at the row-statistic tolerance, with poisoned floats past the last row that must
// stay poisoned; then the speed on 4096 x 4096. Chapter 11's op (norm -> linear) is no registry
// op, so the grader runs its own cases with the harness's parts: random fill, poisoned device
// buffers, compare.
#include "normlab_catch.hpp"

#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ex11.cuh"
#include "grading.hpp"
#include "normlab/buffer.hpp"
#include "normlab/compare.hpp"
#include "normlab/random.hpp"
#include "normlab/reference.hpp"
#include "normlab/roofline.hpp"

namespace {

using namespace normlab;

constexpr const char* kKernel = "ex11_row_rstd";
constexpr float kEps = 1e-6f;           // FlashNorm's
constexpr std::int64_t kGuardRows = 8;  // poisoned floats after the last rstd

struct StatisticsCase {
  std::int64_t rows = 0, cols = 0;
  std::int64_t pad = 0;       ///< NaN guard elements after each row of x
  std::int64_t misalign = 0;  ///< elements x's base is shifted by
  InputSpec input;

  std::string describe() const {
    return "row_rstd fp16 " + std::to_string(rows) + "x" + std::to_string(cols) + " stride " +
           std::to_string(cols + pad) + " misalign " + std::to_string(misalign) + " " +
           name_of(input.distribution) + " scale " + std::to_string(input.scale) + " seed " +
           std::to_string(input.seed);
  }
};

// Dense rows: a width that is not a multiple of 8 leaves rows off 16-byte boundaries.
StatisticsCase dense_case(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  return {.rows = rows, .cols = cols, .input = {.seed = seed}};
}

// Rows 16-byte aligned: the stride rounded up to 8 elements, plus 8 NaN, so that a 16-byte read
// past a row's end lands on poison.
StatisticsCase padded_case(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  return {.rows = rows, .cols = cols, .pad = (8 - cols % 8) % 8 + 8, .input = {.seed = seed}};
}

// 1 / sqrt(mean(x^2) + eps) of each row, in float64, from the fp16 values the kernel reads:
// the harness's RMSNorm reference, of which only rstd is kept.
std::vector<double> reference_rstd(const HostMatrix& x, float eps) {
  return rmsnorm_forward(x.to_dense(), {.rows = x.rows(), .cols = x.cols(), .eps = eps}).rstd;
}

// Runs the kernel once on @p c, rstd and kGuardRows floats after it poisoned, and compares.
CaseResult grade_case(const StatisticsCase& c) {
  HostMatrix x(DType::f16, c.rows, c.cols, c.cols + c.pad);  // guard bands stay poison (NaN)
  fill_random(x, c.input);
  const PlacedMatrix x_device(x, c.misalign);
  HostMatrix rstd(DType::f32, c.rows + kGuardRows, 1);
  const PlacedMatrix rstd_device = PlacedMatrix::poisoned_like(rstd, 0);
  ex11::row_rstd(static_cast<const __half*>(x_device.data()), x.stride(), c.rows, c.cols, kEps,
                 static_cast<float*>(rstd_device.data()), nullptr);
  NORMLAB_CHECK(cudaDeviceSynchronize());
  rstd_device.download(rstd);
  CompareReport report = compare_rows(rstd, 0, reference_rstd(x, kEps),
                                      tolerance_for(DType::f32, OutputKind::row_statistic), "rstd");
  for (std::int64_t r = c.rows; r < rstd.rows(); ++r)
    report.guard_overwrites += rstd.is_poison(r, 0) ? 0 : 1;
  return {.kernel = kKernel, .case_description = c.describe(), .reports = {report}};
}

// The widths of FlashNorm's models (576, 2048, 4096) and their ragged neighbours, on both sides
// of a chunk (8) and of one pass of the block (2048); row counts of one, a few, a decode batch
// and a prefill not a power of two.
std::vector<StatisticsCase> correctness_cases() {
  std::vector<StatisticsCase> cases;
  std::uint64_t seed = 1100;
  for (std::int64_t rows : {1, 3, 64, 257}) {
    for (std::int64_t cols : {1, 7, 9, 576, 1000, 2047, 2049, 4096, 8200}) {
      cases.push_back(dense_case(rows, cols, seed++));
      cases.push_back(padded_case(rows, cols, seed++));
    }
  }
  StatisticsCase misaligned = padded_case(37, 1001, seed++);
  misaligned.misalign = 3;  // every row off a 16-byte boundary: element by element throughout
  cases.push_back(misaligned);
  StatisticsCase small = padded_case(64, 576, seed++);
  small.input.scale = 1e-3;  // mean(x^2) ~ eps: eps must sit inside the square root, once
  cases.push_back(small);
  return cases;
}

// Bandwidth of the kernel on @p rows x @p cols dense fp16: X read once, one float a row written.
Measurement measure_speed(std::int64_t rows, std::int64_t cols) {
  HostMatrix x(DType::f16, rows, cols);
  fill_random(x, {.seed = 1});
  const PlacedMatrix x_device(x, 0);
  DeviceBuffer<float> rstd(static_cast<std::size_t>(rows));
  Measurement m;
  m.timing = time_on_device([&](cudaStream_t stream) {
    ex11::row_rstd(static_cast<const __half*>(x_device.data()), cols, rows, cols, kEps, rstd.data(),
                   stream);
  });
  m.bytes = static_cast<double>(rows * cols * 2 + rows * 4);
  m.gbps = gigabytes_per_second(m.bytes, m.timing.median_ms);
  m.percent_of_roof = percent_of_copy_roof(m.gbps);
  return m;
}

bool all_poison(const DeviceBuffer<float>& buffer) {
  std::vector<unsigned char> bytes(buffer.bytes());
  buffer.download(bytes.data());
  for (unsigned char b : bytes)
    if (b != kPoisonByte) return false;
  return true;
}

}  // namespace

TEST_CASE("ex11: 1/RMS of every fp16 row matches the float64 reference", "[ex11]") {
  grading::Scorecard card = grading::grade_each(kKernel, correctness_cases(), grade_case);
  if (card.all_passed()) {
    card.speed = measure_speed(4096, 4096);
    card.speed_case = "row_rstd fp16 4096x4096";
  }
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex11: rows = 0 launches nothing", "[ex11]") {
  CHECK(grading::operations_enqueued([](cudaStream_t stream) {
          ex11::row_rstd(nullptr, 576, 0, 576, kEps, nullptr,
                         stream);  // nulls are fine: nothing to read
        }) == 0);
}

TEST_CASE("ex11: bad arguments are refused by name, nothing written", "[ex11]") {
  DeviceBuffer<__half> x(4 * 576);
  DeviceBuffer<float> rstd(4);
  rstd.poison();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(ex11::row_rstd(nullptr, 576, 4, 576, kEps, rstd.data(), nullptr),
                    Catch::Contains("'x'"));
  CHECK_THROWS_WITH(ex11::row_rstd(x.data(), 576, 4, 576, kEps, nullptr, nullptr),
                    Catch::Contains("'rstd'"));
  CHECK_THROWS_WITH(ex11::row_rstd(x.data(), 575, 4, 576, kEps, rstd.data(), nullptr),
                    Catch::Contains("'x_stride'"));
  CHECK_THROWS_WITH(ex11::row_rstd(x.data(), 576, -1, 576, kEps, rstd.data(), nullptr),
                    Catch::Contains("'rows'"));
  CHECK_THROWS_WITH(ex11::row_rstd(x.data(), 576, 4, 0, kEps, rstd.data(), nullptr),
                    Catch::Contains("'cols'"));
  CHECK_THROWS_WITH(ex11::row_rstd(x.data(), 576, 4, 576, nan, rstd.data(), nullptr),
                    Catch::Contains("'eps'"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  CHECK(all_poison(rstd));
}

// A few small odd shapes, run by the compute-sanitizer tests (memcheck, racecheck).
TEST_CASE("ex11: small odd shapes", "[.sanitize]") {
  StatisticsCase misaligned = padded_case(37, 1001, 5);
  misaligned.misalign = 3;
  for (const StatisticsCase& c :
       {misaligned, dense_case(3, 7, 5), padded_case(2, 4103, 5), padded_case(5, 576, 5)}) {
    const CaseResult result = grade_case(c);
    INFO(result.describe());
    CHECK(result.passed());
  }
}
