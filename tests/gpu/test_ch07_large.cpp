// SPDX-License-Identifier: Apache-2.0
// Chapter 07 on a tensor of more than 2^31 elements: 3 rows about 2^30 elements apart, so the
// last row starts past element 2^31 (byte 2^32). Any 32-bit offset arithmetic reads or writes
// the wrong place. The tensor takes about 6.4 GB of device memory but only its written columns
// and a few guard elements around each row are read back, so the host needs a few kilobytes.
#include "normlab_catch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "general_forward.hpp"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/compare.hpp"
#include "normlab/kernel.hpp"
#include "normlab/random.hpp"
#include "normlab/reference.hpp"

namespace {

using namespace normlab;

constexpr std::int64_t kRows = 3;
constexpr std::int64_t kCols = 64;
constexpr std::int64_t kGuard = 16;  // elements checked on each side of a row

using Bf16Bits = std::uint16_t;
constexpr Bf16Bits kPoisonBits = 0xFFFF;

// The huge tensor: poisoned, with the dense rows of `values` copied to rows `stride` apart.
void place_rows(DeviceBuffer<Bf16Bits>& tensor, const HostMatrix& values, std::int64_t stride) {
  tensor.poison();
  for (std::int64_t r = 0; r < kRows; ++r) {
    NORMLAB_CHECK(cudaMemcpy(tensor.data() + r * stride,
                             static_cast<const Bf16Bits*>(values.data()) + r * kCols,
                             kCols * sizeof(Bf16Bits), cudaMemcpyHostToDevice));
  }
}

// Reads the rows back into a dense matrix, and checks that the kGuard elements before each row
// (after the first) and after each row still hold poison.
HostMatrix read_rows(const DeviceBuffer<Bf16Bits>& tensor, std::int64_t stride) {
  HostMatrix rows(DType::bf16, kRows, kCols);
  for (std::int64_t r = 0; r < kRows; ++r) {
    std::vector<Bf16Bits> window(kCols + 2 * kGuard, 0);
    const std::int64_t start = r * stride - kGuard;
    const std::int64_t first = r == 0 ? 0 : start;
    const std::int64_t last = std::min<std::int64_t>(
        start + static_cast<std::int64_t>(window.size()), static_cast<std::int64_t>(tensor.size()));
    NORMLAB_CHECK(cudaMemcpy(window.data() + (first - start), tensor.data() + first,
                             (last - first) * sizeof(Bf16Bits), cudaMemcpyDeviceToHost));
    for (std::int64_t i = first - start; i < last - start; ++i) {
      const bool in_row = i >= kGuard && i < kGuard + kCols;
      INFO("row " << r << ", element " << i - kGuard << " of the row");
      if (!in_row) CHECK(window[static_cast<std::size_t>(i)] == kPoisonBits);
    }
    std::memcpy(static_cast<Bf16Bits*>(rows.data()) + r * kCols, window.data() + kGuard,
                kCols * sizeof(Bf16Bits));
  }
  return rows;
}

}  // namespace

TEST_CASE("rows * stride > 2^31 elements: int64 offsets everywhere", "[ch07][large]") {
  // 2^30 + 64: every row 16-byte aligned (vector path); 2^30 + 67: each row its own alignment.
  const std::int64_t strides[] = {(std::int64_t{1} << 30) + 64, (std::int64_t{1} << 30) + 67};
  const std::int64_t largest = strides[1];
  REQUIRE(kRows * largest > (std::int64_t{1} << 31));
  DeviceBuffer<Bf16Bits> tensor(static_cast<std::size_t>(kRows * largest));

  HostMatrix x(DType::bf16, kRows, kCols), r(DType::bf16, kRows, kCols), w(DType::f32, 1, kCols);
  fill_random(x, {.seed = 71});
  fill_random(r, {.seed = 72});
  fill_random(w, {.distribution = Distribution::uniform, .mean = 1.0, .scale = 0.3, .seed = 73});
  const std::vector<double> xs = x.to_dense(), rs = r.to_dense(), ws = w.to_dense();
  const ReferenceParams params{.rows = kRows, .cols = kCols, .eps = 1e-5, .weight = ws};
  const Tolerance tolerance = tolerance_for(DType::bf16);
  DeviceBuffer<float> weight(kCols);
  weight.upload(w.data());

  for (std::int64_t stride : strides) {
    INFO("stride " << stride);
    // RMSNorm in place: x and y are the huge tensor.
    {
      place_rows(tensor, x, stride);
      NormCall call{.op = Op::rmsnorm,
                    .dtype = DType::bf16,
                    .weight_dtype = DType::f32,
                    .rows = kRows,
                    .cols = kCols,
                    .eps = 1e-5f};
      call.x = call.y = tensor.data();
      call.x_stride = call.y_stride = stride;
      call.weight = weight.data();
      kernels::forward(call, nullptr);
      NORMLAB_CHECK(cudaDeviceSynchronize());
      const CompareReport report =
          compare(read_rows(tensor, stride), rmsnorm_forward(xs, params).y, tolerance, "y");
      INFO(report.describe());
      CHECK(report.passed());
    }
    // add + RMSNorm: the residual is the huge tensor, updated in place; x and y are dense.
    {
      place_rows(tensor, r, stride);
      DeviceBuffer<Bf16Bits> x_dense(kRows * kCols), y_dense(kRows * kCols);
      x_dense.upload(x.data());
      y_dense.poison();
      NormCall call{.op = Op::add_rmsnorm,
                    .dtype = DType::bf16,
                    .weight_dtype = DType::f32,
                    .rows = kRows,
                    .cols = kCols,
                    .eps = 1e-5f};
      call.x = x_dense.data();
      call.x_stride = kCols;
      call.y = y_dense.data();
      call.y_stride = kCols;
      call.residual = call.residual_out = tensor.data();
      call.residual_stride = call.residual_out_stride = stride;
      call.weight = weight.data();
      kernels::forward(call, nullptr);
      NORMLAB_CHECK(cudaDeviceSynchronize());
      const ReferenceForward want =
          add_rmsnorm_forward(xs, rs, params, [](double v) { return round_to(DType::bf16, v); });
      HostMatrix y(DType::bf16, kRows, kCols);
      y_dense.download(y.data());
      const CompareReport y_report = compare(y, want.y, tolerance, "y");
      const CompareReport h_report =
          compare(read_rows(tensor, stride), want.residual, tolerance, "residual");
      INFO(y_report.describe() << "\n" << h_report.describe());
      CHECK(y_report.passed());
      CHECK(h_report.passed());
    }
  }
}
