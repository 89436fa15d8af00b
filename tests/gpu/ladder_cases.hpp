// SPDX-License-Identifier: Apache-2.0
// What the RMSNorm ladder tests (chapters 01-04 and their known-wrong kernels) share: the
// cases every ladder kernel must pass, and the argument checks every ladder launcher makes.
#pragma once

#include "normlab_catch.hpp"

#include <cstdint>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "grading.hpp"
#include "norm_cases.hpp"
#include "normlab/block_size.hpp"
#include "normlab/buffer.hpp"
#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"

namespace ladder {

using normlab::Case;
using normlab::KernelEntry;

using normlab::norm_cases::registered;

inline Case rmsnorm_case(std::int64_t rows, std::int64_t cols, std::uint64_t seed = 1) {
  Case c = normlab::default_case(normlab::Op::rmsnorm, rows, cols);
  c.input.seed = seed;
  return c;
}

/// Rows @p pad elements longer than cols; the guard band [cols, cols + pad) must stay poisoned.
inline Case padded_case(std::int64_t rows, std::int64_t cols, std::int64_t pad) {
  Case c = rmsnorm_case(rows, cols, 40 + static_cast<std::uint64_t>(cols % 97 + pad));
  c.pad = pad;
  return c;
}

/// The pad that makes a row of @p cols fp32 elements a whole number of 16-byte units.
inline std::int64_t pad_to_16_bytes(std::int64_t cols) {
  return (4 - cols % 4) % 4;
}

/// The grading grid, rows of scale 1e-3 (where eps matters), and rows with a cols % 4 tail
/// padded to a 16-byte stride, so that a 16-byte path meets its tail.
inline std::vector<Case> grid_and_edges(const KernelEntry& kernel) {
  using normlab::grading::kGridCols;
  using normlab::grading::kGridRows;
  std::vector<Case> cases = normlab::grading::grid_cases(kernel, kGridRows, kGridCols);
  cases.push_back(normlab::grading::small_magnitude_case(normlab::Op::rmsnorm, 64, 1000));
  for (std::int64_t cols : kGridCols) {
    if (cols % 4 != 0) cases.push_back(padded_case(33, cols, pad_to_16_bytes(cols)));
  }
  return cases;
}

/// The case of @p cases with this shape and pad (the one expected to catch a bug).
inline Case find_case(const std::vector<Case>& cases, std::int64_t rows, std::int64_t cols,
                      std::int64_t pad = 0) {
  for (const Case& c : cases) {
    if (c.shape.rows == rows && c.shape.cols == cols && c.pad == pad) return c;
  }
  throw std::logic_error("no such case");
}

using normlab::norm_cases::require_all_pass;

/// Heavy-tailed rows (1% outliers of 20 to 100 sigma), padded and not, narrow and wide.
inline std::vector<Case> heavy_tailed_cases() {
  std::vector<Case> cases;
  for (std::int64_t cols : {1025, 4096, 8193}) {
    Case c = rmsnorm_case(65, cols, 500 + static_cast<std::uint64_t>(cols));
    c.input.distribution = normlab::Distribution::heavy_tailed;
    cases.push_back(c);
    c.pad = 3;
    cases.push_back(c);
  }
  return cases;
}

/// Strided rows with guard bands of several widths, including ones that leave every row
/// misaligned and ones that make the stride a multiple of 4.
inline std::vector<Case> padded_cases() {
  std::vector<Case> cases;
  for (std::int64_t cols : {1, 31, 33, 1023, 1025, 4095, 8191, 12287}) {
    for (std::int64_t pad : {1, 2, 3, 4, 61})
      cases.push_back(padded_case(17, cols, pad));
  }
  return cases;
}

/// Base pointers shifted by 1 to 4 elements (4: 16-byte aligned again), with and without pad.
inline std::vector<Case> misaligned_cases() {
  std::vector<Case> cases;
  for (std::int64_t cols : {1, 33, 1024, 4096, 8192, 12288}) {
    for (std::int64_t misalign : {1, 2, 3, 4}) {
      Case c = rmsnorm_case(19, cols, 700 + static_cast<std::uint64_t>(cols + misalign));
      c.misalign = misalign;
      cases.push_back(c);
      c.pad = 4 - misalign;
      cases.push_back(c);
    }
  }
  return cases;
}

/// rows = 0 launches nothing and reports success.
inline void require_empty_ok(const KernelEntry& kernel) {
  for (std::int64_t cols : {1, 64, 8192}) {
    normlab::CaseResult result;
    REQUIRE_NOTHROW(result = normlab::verify(kernel, rmsnorm_case(0, cols)));
    CHECK(result.passed());
  }
}

/// The signature every ladder launcher shares.
using Launcher = void (*)(const float* x, std::int64_t x_stride, const float* weight, float* y,
                          std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                          cudaStream_t stream);

/// Each bad argument is refused with std::invalid_argument naming it, before any launch.
inline void require_argument_errors(Launcher launch) {
  normlab::DeviceBuffer<float> x(64), y(64), w(8);
  const float eps = 1e-5f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  using Catch::Contains;
  CHECK_THROWS_AS(launch(nullptr, 8, w.data(), y.data(), 8, 4, 8, eps, nullptr),
                  std::invalid_argument);
  CHECK_THROWS_WITH(launch(nullptr, 8, w.data(), y.data(), 8, 4, 8, eps, nullptr),
                    Contains("'x' is null"));
  CHECK_THROWS_WITH(launch(x.data(), 8, w.data(), nullptr, 8, 4, 8, eps, nullptr),
                    Contains("'y' is null"));
  CHECK_THROWS_WITH(launch(x.data(), 8, nullptr, y.data(), 8, 4, 8, eps, nullptr),
                    Contains("'weight' is null"));
  CHECK_THROWS_WITH(launch(x.data(), 8, w.data(), y.data(), 8, 4, 0, eps, nullptr),
                    Contains("'cols'"));
  CHECK_THROWS_WITH(launch(x.data(), 8, w.data(), y.data(), 8, -1, 8, eps, nullptr),
                    Contains("'rows'"));
  CHECK_THROWS_WITH(launch(x.data(), 7, w.data(), y.data(), 8, 4, 8, eps, nullptr),
                    Contains("'x_stride'"));
  CHECK_THROWS_WITH(launch(x.data(), 8, w.data(), y.data(), 7, 4, 8, eps, nullptr),
                    Contains("'y_stride'"));
  CHECK_THROWS_WITH(launch(x.data(), 8, w.data(), y.data(), 8, 4, 8, -1e-5f, nullptr),
                    Contains("'eps'"));
  CHECK_THROWS_WITH(launch(x.data(), 8, w.data(), y.data(), 8, 4, 8, nan, nullptr),
                    Contains("'eps'"));
  // rows = 0 needs no tensors, and launches nothing.
  CHECK_NOTHROW(launch(nullptr, 8, w.data(), nullptr, 8, 0, 8, eps, nullptr));
}

/// The signature of a ladder launcher that takes its block size (chapters 02 and 03).
using SizedLauncher = void (*)(const float* x, std::int64_t x_stride, const float* weight, float* y,
                               std::int64_t y_stride, std::int64_t rows, std::int64_t cols,
                               float eps, int threads, cudaStream_t stream);

/// Every block size passes the grading grid and the heavy tails; any other is refused by name.
inline void require_every_block_size(KernelEntry (*kernel_with_threads)(int),
                                     SizedLauncher launch) {
  for (int threads : normlab::kBlockSizes) {
    const KernelEntry sized = kernel_with_threads(threads);
    require_all_pass(sized, grid_and_edges(sized));
    require_all_pass(sized, heavy_tailed_cases());
  }
  normlab::DeviceBuffer<float> x(64), y(64), w(8);
  for (int threads : {0, 32, 100, 2048}) {
    CHECK_THROWS_WITH(launch(x.data(), 8, w.data(), y.data(), 8, 4, 8, 1e-5f, threads, nullptr),
                      Catch::Contains("'threads'"));
    CHECK_THROWS_WITH(kernel_with_threads(threads), Catch::Contains("'threads'"));
  }
}

}  // namespace ladder
