// SPDX-License-Identifier: Apache-2.0
// normlab used from another project: plans an RMSNorm, checks that a malformed call is refused
// by the argument's name, and on a GPU runs it and compares a row with the CPU's answer.
#include <normlab/normlab.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace {

constexpr std::int64_t kRows = 64, kCols = 1000;
constexpr int kAssumedGpu = 90;  // sm_90, for plan() without a GPU

bool gpu_visible() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

// An fp32 RMSNorm of kRows x kCols with a weight; the pointers are the caller's.
normlab::NormCall rmsnorm_call(const float* x, float* y, const float* weight) {
  normlab::NormCall call;
  call.op = normlab::Op::rmsnorm;
  call.rows = kRows;
  call.cols = kCols;
  call.x = x;
  call.x_stride = kCols;
  call.y = y;
  call.y_stride = kCols;
  call.weight = weight;
  return call;
}

void require(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

// The largest relative error of row @p row of @p y against the CPU's RMSNorm of @p x.
double row_error(const std::vector<float>& x, const std::vector<float>& weight,
                 const std::vector<float>& y, std::int64_t row) {
  const float* in = x.data() + row * kCols;
  double squares = 0.0;
  for (std::int64_t c = 0; c < kCols; ++c)
    squares += static_cast<double>(in[c]) * in[c];
  const double rstd = 1.0 / std::sqrt(squares / kCols + 1e-5);
  double worst = 0.0;
  for (std::int64_t c = 0; c < kCols; ++c) {
    const double want = in[c] * rstd * weight[c];
    worst = std::fmax(worst, std::fabs(y[row * kCols + c] - want) / (std::fabs(want) + 1e-6));
  }
  return worst;
}

void run_on_gpu(const std::vector<float>& x, const std::vector<float>& weight) {
  const std::size_t bytes = x.size() * sizeof(float);
  float *dx = nullptr, *dy = nullptr, *dw = nullptr;
  require(cudaMalloc(&dx, bytes) == cudaSuccess && cudaMalloc(&dy, bytes) == cudaSuccess &&
              cudaMalloc(&dw, weight.size() * sizeof(float)) == cudaSuccess,
          "cudaMalloc failed");
  require(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(dw, weight.data(), weight.size() * sizeof(float),
                         cudaMemcpyHostToDevice) == cudaSuccess,
          "cudaMemcpy to the device failed");
  normlab::run(rmsnorm_call(dx, dy, dw));
  std::vector<float> y(x.size());
  require(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost) == cudaSuccess,
          "cudaMemcpy from the device failed");
  require(cudaFree(dx) == cudaSuccess && cudaFree(dy) == cudaSuccess && cudaFree(dw) == cudaSuccess,
          "cudaFree failed");
  for (std::int64_t row : {std::int64_t{0}, kRows / 2, kRows - 1}) {
    const double error = row_error(x, weight, y, row);
    std::printf("row %lld: largest relative error %.2g\n", static_cast<long long>(row), error);
    require(error < 1e-4, "normlab::run's RMSNorm differs from the CPU's");
  }
}

}  // namespace

int main() {
  std::vector<float> x(kRows * kCols), y(x.size()), weight(kCols);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
  for (std::size_t c = 0; c < weight.size(); ++c)
    weight[c] = 0.5f + static_cast<float>(c % 7) / 7.0f;
  try {
    // plan() reads addresses only: host buffers stand in for device ones.
    const normlab::Plan plan =
        normlab::plan(rmsnorm_call(x.data(), y.data(), weight.data()), kAssumedGpu);
    std::printf("plan: %s (%s)\n", plan.kernel->name.c_str(), plan.why.c_str());
    normlab::NormCall malformed = rmsnorm_call(x.data(), nullptr, weight.data());
    try {
      normlab::plan(malformed, kAssumedGpu);
      require(false, "a call with a null y was planned");
    } catch (const std::invalid_argument& error) {
      require(std::strstr(error.what(), "'y'") != nullptr, "the refusal does not name 'y'");
      std::printf("refused: %s\n", error.what());
    }
    if (!gpu_visible()) {
      std::printf("no CUDA GPU visible: planned only\n");
      return 0;
    }
    run_on_gpu(x, weight);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "normlab_consumer: %s\n", error.what());
    return 1;
  }
  std::printf("normlab_consumer: ok\n");
  return 0;
}
