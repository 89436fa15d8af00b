// SPDX-License-Identifier: Apache-2.0
// device::group_sum<kLanes> (reduce.cuh), the sub-warp all-reduce of chapter 09: every lane gets
// the sum of exactly its own group of kLanes lanes, for every group width, checked against a
// float64 sum of the same values; a group's result never includes a neighbouring group's lanes.
#include "normlab_catch.hpp"

#include <cmath>
#include <vector>

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;

template <int kLanes>
__global__ void group_sums(const float* in, float* out) {
  out[threadIdx.x] = normlab::device::group_sum<kLanes>(in[threadIdx.x]);
}

template <int kLanes>
void check_group_sums() {
  std::vector<float> values(kThreads);
  for (int i = 0; i < kThreads; ++i)  // distinct in every group: 1 + i / 1024 + i * i / 64
    values[i] = 1.0f + static_cast<float>(i) / 1024.0f + static_cast<float>(i * i % 97) / 64.0f;
  normlab::DeviceBuffer<float> in(kThreads), out(kThreads);
  NORMLAB_CHECK(
      cudaMemcpy(in.data(), values.data(), kThreads * sizeof(float), cudaMemcpyHostToDevice));
  group_sums<kLanes><<<1, kThreads>>>(in.data(), out.data());
  NORMLAB_CHECK_LAUNCH();
  std::vector<float> got(kThreads);
  NORMLAB_CHECK(
      cudaMemcpy(got.data(), out.data(), kThreads * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kThreads; ++i) {
    double want = 0.0;
    for (int j = i / kLanes * kLanes; j < (i / kLanes + 1) * kLanes; ++j)
      want += values[j];
    INFO("group of " << kLanes << " lanes, thread " << i);
    CHECK(std::abs(got[i] - want) <= 1e-5 * want);
  }
}

}  // namespace

TEST_CASE("group_sum: every lane gets its own group's sum, for every group width", "[ch09]") {
  check_group_sums<1>();
  check_group_sums<2>();
  check_group_sums<4>();
  check_group_sums<8>();
  check_group_sums<16>();
  check_group_sums<32>();
}
