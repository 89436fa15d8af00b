// SPDX-License-Identifier: Apache-2.0
// The library's device building blocks (normlab/device/) against chapter 03's hand-written
// sums and against float64 sums on the host, on random non-uniform data: warp sums, block
// sums called several times in a row (the contract: every thread gets the result, repeated
// calls are safe), and Welford moments merged over a block.
#include "normlab_catch.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/welford.cuh"
#include "reductions.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kCalls = 3;  // block sums in a row, on different values

// Block b reduces in[b * kThreads + t]. out per thread and block: the library's warp sum, the
// chapter's warp sum, the chapter's block sum, then kCalls library block sums of the value
// times 1, 2, 3 (every thread writes what it got, so a thread that got less shows).
__global__ void sums(const float* in, float* library_warp, float* chapter_warp,
                     float* chapter_block, float* library_block) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const float v = in[i];
  library_warp[i] = normlab::device::warp_sum(v);
  chapter_warp[i] = normlab::ch03::warp_sum(v);
  chapter_block[i] = normlab::ch03::block_sum<kThreads>(v);
  __syncthreads();  // chapter 03's block_sum leaves its slots to the caller
  for (int k = 0; k < kCalls; ++k)
    library_block[i * kCalls + k] = normlab::device::block_sum(v * static_cast<float>(k + 1));
}

// Block b pushes its threads' values (4 each) into Welford moments and merges them over the
// block; every thread writes the count, mean and M2 it got.
__global__ void moments(const float* in, float* out) {
  const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x) * 4;
  normlab::device::Moments m{};
  for (int j = 0; j < 4; ++j)
    m = normlab::device::welford_push(m, in[first + j]);
  m = normlab::device::block_reduce(m, normlab::device::welford_merge);
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  out[3 * i] = m.count;
  out[3 * i + 1] = m.mean;
  out[3 * i + 2] = m.m2;
}

std::vector<float> random_values(std::size_t n, std::uint32_t seed, float mean) {
  std::mt19937 engine(seed);
  std::lognormal_distribution<float> spread(0.0f, 1.0f);
  std::bernoulli_distribution sign(0.5);
  std::vector<float> values(n);
  for (float& v : values)
    v = mean + (sign(engine) ? 1.0f : -1.0f) * spread(engine);
  return values;
}

std::vector<float> download(const normlab::DeviceBuffer<float>& buffer) {
  std::vector<float> host(buffer.size());
  NORMLAB_CHECK(cudaMemcpy(host.data(), buffer.data(), buffer.size() * sizeof(float),
                           cudaMemcpyDeviceToHost));
  return host;
}

// Whether a float sum of @p n terms is within rounding of the float64 sum @p want: each of the
// log2(n) + 1 levels of a tree of additions rounds by at most 2^-24 of the sum of |terms|
// (doubled for margin). A lost or doubled term, at least 1e-3 here, is far outside.
bool close_sum(double got, double want, double sum_of_magnitudes, int n) {
  const double levels = std::log2(static_cast<double>(n)) + 1.0;
  return std::abs(got - want) <= 2.0 * levels * 0x1p-24 * sum_of_magnitudes;
}

}  // namespace

TEST_CASE("library warp and block sums agree with chapter 03's and with float64") {
  constexpr int kBlocks = 37;
  const std::size_t n = std::size_t{kBlocks} * kThreads;
  const std::vector<float> values = random_values(n, 2026, 0.0f);
  normlab::DeviceBuffer<float> in(n), library_warp(n), chapter_warp(n), chapter_block(n),
      library_block(n * kCalls);
  NORMLAB_CHECK(cudaMemcpy(in.data(), values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  sums<<<kBlocks, kThreads>>>(in.data(), library_warp.data(), chapter_warp.data(),
                              chapter_block.data(), library_block.data());
  NORMLAB_CHECK_LAUNCH();
  NORMLAB_CHECK(cudaDeviceSynchronize());
  const auto lw = download(library_warp), cw = download(chapter_warp), cb = download(chapter_block),
             lb = download(library_block);

  int wrong = 0;
  for (int b = 0; b < kBlocks; ++b) {
    double block_total = 0.0, block_magnitude = 0.0;
    for (int t = 0; t < kThreads; ++t) {
      block_total += values[b * kThreads + t];
      block_magnitude += std::abs(values[b * kThreads + t]);
    }
    for (int t = 0; t < kThreads; ++t) {
      const std::size_t i = std::size_t(b) * kThreads + t;
      double warp_total = 0.0, warp_magnitude = 0.0;
      for (int l = 0; l < 32; ++l) {
        warp_total += values[i / 32 * 32 + l];
        warp_magnitude += std::abs(values[i / 32 * 32 + l]);
      }
      if (lw[i] != cw[i] || !close_sum(lw[i], warp_total, warp_magnitude, 32)) ++wrong;
      if (!close_sum(cb[i], block_total, block_magnitude, kThreads)) ++wrong;
      for (int k = 0; k < kCalls; ++k) {
        if (!close_sum(lb[i * kCalls + k], (k + 1) * block_total, (k + 1) * block_magnitude,
                       kThreads))
          ++wrong;
      }
      if (lb[i * kCalls] != cb[i]) ++wrong;  // same tree, same order: the same float
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("library Welford moments merged over a block match float64, also far from zero") {
  constexpr int kBlocks = 11;
  for (const float mean : {0.0f, 1e4f}) {
    const std::size_t n = std::size_t{kBlocks} * kThreads * 4;
    const std::vector<float> values = random_values(n, 7, mean);
    normlab::DeviceBuffer<float> in(n), out(std::size_t{kBlocks} * kThreads * 3);
    NORMLAB_CHECK(cudaMemcpy(in.data(), values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    moments<<<kBlocks, kThreads>>>(in.data(), out.data());
    NORMLAB_CHECK_LAUNCH();
    NORMLAB_CHECK(cudaDeviceSynchronize());
    const auto got = download(out);
    int wrong = 0;
    for (int b = 0; b < kBlocks; ++b) {
      const std::size_t count = std::size_t{kThreads} * 4;
      double sum = 0.0;
      for (std::size_t j = 0; j < count; ++j)
        sum += values[b * count + j];
      const double mu = sum / count;
      double m2 = 0.0;
      for (std::size_t j = 0; j < count; ++j)
        m2 += (values[b * count + j] - mu) * (values[b * count + j] - mu);
      for (int t = 0; t < kThreads; ++t) {
        const float* m = &got[3 * (std::size_t(b) * kThreads + t)];
        // The mean within a few fp32 steps of mu per level of pushes and merges, plus a
        // little of the spread; the variance within 0.5%. E[x^2] - E[x]^2 in fp32 would lose
        // every digit of the variance at a mean of 1e4 (fp32 values near 1e8 are 8 apart).
        const double variance = m2 / count;
        const double levels = std::log2(static_cast<double>(count)) + 1.0;
        const double mean_tolerance =
            1e-5 * std::sqrt(variance) + 4.0 * levels * std::abs(mu) * 0x1p-23;
        if (m[0] != static_cast<float>(count)) ++wrong;
        if (std::abs(m[1] - mu) > mean_tolerance) ++wrong;
        if (std::abs(m[2] / count - variance) > 5e-3 * variance) ++wrong;
      }
    }
    INFO("mean " << mean);
    CHECK(wrong == 0);
  }
}
