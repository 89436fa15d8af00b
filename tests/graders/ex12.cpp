// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 12 (the partial statistics and their merge), on one GPU: fp32 rows of 2 to
// 4099 columns split over one to four ranks, ragged and even, each rank's slice reduced to
// moments in its own buffer (a band of NaN after each row), the moments merged in all-gather's
// layout, the mean and rstd against the float64 LayerNorm reference (ex12_cases.hpp); then the
// speed of both passes on 8192 x 8192 over two ranks. The same exercise on two GPUs through
// NCCL is graded by ex12_nccl.cpp.
#include "normlab_catch.hpp"

#include <cstdint>
#include <iostream>
#include <limits>
#include <vector>

#include "ex12_cases.hpp"
#include "grading.hpp"
#include "normlab/buffer.hpp"
#include "normlab/roofline.hpp"
#include "normlab/timing.hpp"

namespace {

using namespace normlab;
using namespace normlab::ex12_grader;

// Both passes on @p rows x @p cols dense fp32 split over @p ranks: each slice read once, its
// moments written, all of them read by the merge, two floats a row written.
Measurement measure_speed(std::int64_t rows, std::int64_t cols, int ranks) {
  std::vector<DeviceBuffer<float>> slices;
  for (int rank = 0; rank < ranks; ++rank) {
    HostMatrix slice(DType::f32, rows, split_of(cols, ranks, rank).count);
    fill_random(slice, {.seed = static_cast<std::uint64_t>(rank + 1)});
    slices.emplace_back(static_cast<std::size_t>(slice.rows() * slice.cols()));
    slices.back().upload(slice.data());
  }
  DeviceBuffer<float> gathered(static_cast<std::size_t>(ranks * moment_floats(rows)));
  DeviceBuffer<float> mean(static_cast<std::size_t>(rows)), rstd(static_cast<std::size_t>(rows));
  Measurement m;
  m.timing = time_on_device([&](cudaStream_t stream) {
    for (int rank = 0; rank < ranks; ++rank) {
      const std::int64_t count = split_of(cols, ranks, rank).count;
      ex12::slice_moments(slices[rank].data(), count, rows, count,
                          gathered.data() + rank * moment_floats(rows), stream);
    }
    ex12::merge_statistics(gathered.data(), ranks, rows, kEps, mean.data(), rstd.data(), stream);
  });
  m.bytes = static_cast<double>(rows * cols * 4 + 2 * ranks * moment_floats(rows) * 4 + rows * 8);
  m.gbps = gigabytes_per_second(m.bytes, m.timing.median_ms);
  m.percent_of_roof = percent_of_copy_roof(m.gbps);
  return m;
}

}  // namespace

TEST_CASE("ex12: the ranks' moments, merged, give every row's statistics", "[ex12]") {
  grading::Scorecard card = grading::grade_each(kKernel, correctness_cases(), grade_on_one_gpu);
  if (card.all_passed()) {
    card.speed = measure_speed(8192, 8192, 2);
    card.speed_case = "layernorm statistics fp32 8192x8192 over 2 ranks";
  }
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex12: rows = 0 launches nothing", "[ex12]") {
  CHECK(grading::operations_enqueued([](cudaStream_t stream) {
          // Nulls are fine: there is nothing to read or write.
          ex12::slice_moments(nullptr, 64, 0, 64, nullptr, stream);
          ex12::merge_statistics(nullptr, 2, 0, kEps, nullptr, nullptr, stream);
        }) == 0);
}

TEST_CASE("ex12: bad arguments are refused by name, nothing written", "[ex12]") {
  DeviceBuffer<float> x(4 * 64);
  HostMatrix moments(DType::f32, 2 * 4, ex12::kMomentFloats), mean(DType::f32, 4, 1),
      rstd(DType::f32, 4, 1);
  const PlacedMatrix moments_device = PlacedMatrix::poisoned_like(moments, 0);
  const PlacedMatrix mean_device = PlacedMatrix::poisoned_like(mean, 0);
  const PlacedMatrix rstd_device = PlacedMatrix::poisoned_like(rstd, 0);
  auto* m = static_cast<float*>(moments_device.data());
  auto* mu = static_cast<float*>(mean_device.data());
  auto* r = static_cast<float*>(rstd_device.data());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(ex12::slice_moments(nullptr, 64, 4, 64, m, nullptr), Catch::Contains("'x'"));
  CHECK_THROWS_WITH(ex12::slice_moments(x.data(), 63, 4, 64, m, nullptr),
                    Catch::Contains("'x_stride'"));
  CHECK_THROWS_WITH(ex12::slice_moments(x.data(), 64, -1, 64, m, nullptr),
                    Catch::Contains("'rows'"));
  CHECK_THROWS_WITH(ex12::slice_moments(x.data(), 64, 4, 0, m, nullptr), Catch::Contains("'cols'"));
  CHECK_THROWS_WITH(ex12::slice_moments(x.data(), 64, 4, 64, nullptr, nullptr),
                    Catch::Contains("'moments'"));
  CHECK_THROWS_WITH(ex12::merge_statistics(m, 0, 4, kEps, mu, r, nullptr),
                    Catch::Contains("'ranks'"));
  CHECK_THROWS_WITH(ex12::merge_statistics(m, 2, -1, kEps, mu, r, nullptr),
                    Catch::Contains("'rows'"));
  CHECK_THROWS_WITH(ex12::merge_statistics(m, 2, 4, nan, mu, r, nullptr), Catch::Contains("'eps'"));
  CHECK_THROWS_WITH(ex12::merge_statistics(nullptr, 2, 4, kEps, mu, r, nullptr),
                    Catch::Contains("'gathered'"));
  CHECK_THROWS_WITH(ex12::merge_statistics(m, 2, 4, kEps, nullptr, r, nullptr),
                    Catch::Contains("'mean'"));
  CHECK_THROWS_WITH(ex12::merge_statistics(m, 2, 4, kEps, mu, nullptr, nullptr),
                    Catch::Contains("'rstd'"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  moments_device.download(moments);
  mean_device.download(mean);
  rstd_device.download(rstd);
  CHECK(written_from(moments, 0) == 0);
  CHECK(written_from(mean, 0) == 0);
  CHECK(written_from(rstd, 0) == 0);
}

// A few small odd shapes, run by the compute-sanitizer tests (memcheck, racecheck).
TEST_CASE("ex12: small odd shapes", "[.sanitize]") {
  for (const SplitCase& c :
       {SplitCase{3, 37, 4, Rows::drifting, 5}, SplitCase{2, 4099, 3, Rows::shifted, 5},
        SplitCase{5, 1000, 2, Rows::drifting, 5}}) {
    const CaseResult result = grade_on_one_gpu(c);
    INFO(result.describe());
    CHECK(result.passed());
  }
}
