// SPDX-License-Identifier: Apache-2.0
// Chapter 11 on the GPU: every path of norm -> linear (plain through normlab::run, deferred
// through the statistics kernel and cuBLASLt, fused) against the float64 reference on ragged
// shapes; graph replays of the fused kernel giving the same bits (a fixed order of sums); the
// statistics kernel alone; and refusals by name with nothing written. Both fused kernels run
// on every shape they take, whichever the path would pick.
#include "normlab_catch.hpp"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "ch11.cuh"
#include "choose.hpp"
#include "norm_linear.hpp"
#include "normlab/buffer.hpp"
#include "normlab/normlab.hpp"
#include "normlab/reference.hpp"
#include "reference.hpp"

namespace {

using namespace normlab;
using namespace normlab::ch11;

// One problem on the device with its layer.
struct Setup {
  Problem p;
  DeviceBuffer<__half> x, g, w, w_folded, w_packed, y;
  NormLinear layer;

  Setup(std::int64_t rows, std::int64_t k, std::int64_t n, std::uint64_t seed)
      : p(random_problem(rows, k, n, seed)),
        x(on_device(p.x)),
        g(on_device(p.g)),
        w(on_device(p.w)),
        w_folded(on_device(fold_weights_fp16(p.g, p.w, k, n))),
        w_packed(on_device(pack_weights(fold_weights_fp16(p.g, p.w, k, n), k, n))),
        y(static_cast<std::size_t>(rows * n)),
        layer([](const NormCall& c, cudaStream_t s) { normlab::run(c, s); },
              {.g = g.data(),
               .w = w.data(),
               .w_folded = w_folded.data(),
               .w_packed = w_packed.data(),
               .k_cols = k,
               .n_cols = n,
               .eps = p.eps},
              rows) {}

  FoldedWeights folded() const { return {.packed = w_packed.data()}; }

  std::vector<__half> run(Path path) {
    y.poison();
    layer.run(path, x.data(), p.rows, y.data(), nullptr);
    return finished_y();
  }

  // The fused path by a named kernel, into a poisoned y.
  std::vector<__half> run(FusedKernel kernel) {
    y.poison();
    fused_rmsnorm_linear(kernel, x.data(), folded(), p.rows, p.k_cols, p.n_cols, p.eps, y.data(),
                         nullptr);
    return finished_y();
  }

  std::vector<__half> finished_y() {
    NORMLAB_CHECK(cudaDeviceSynchronize());
    std::vector<__half> host(y.size());
    y.download(host.data());
    return host;
  }
};

bool all_poison(const std::vector<__half>& values) {
  for (const __half& v : values) {
    unsigned short bits = 0;
    std::memcpy(&bits, &v, sizeof(bits));
    if (bits != 0xFFFF) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("every path matches the float64 reference on ragged shapes", "[ch11]") {
  std::uint64_t seed = 1110;
  for (std::int64_t rows : {1, 3, 64, 65, 257}) {
    for (auto [k, n] : {std::pair<std::int64_t, std::int64_t>{576, 960},
                        {1000, 1001},
                        {2048, 960},
                        {576, 1001}}) {
      Setup s(rows, k, n, seed++);
      const Reference ref = reference(s.p, sample_rows(rows, 64));
      for (Path path : {Path::plain, Path::deferred, Path::fused}) {
        if (path == Path::fused && rows > kFusedMaxRows) continue;
        INFO(rows << " x " << k << " -> " << n << ", " << name_of(path)
                  << "; deferred: " << s.layer.row_scale(rows));
        const Verdict v = compare(ref, s.run(path), n, k);
        INFO(v.report);
        CHECK(v.passed);
      }
    }
  }
}

TEST_CASE("both fused kernels on every padding of the tokens and tiny, odd shapes", "[ch11]") {
  std::uint64_t seed = 1150;
  for (std::int64_t rows : {1, 2, 15, 16, 17, 32, 33, 48, 63, 64}) {
    // K past 1024 at up to 16 tokens: the warp split's 3-tile block, its last block's tiles
    // partly past N (136, 203, 201 columns), K on and off whole units of 32 rows.
    for (auto [k, n] : {std::pair<std::int64_t, std::int64_t>{1, 1},
                        {7, 9},
                        {33, 65},
                        {129, 63},
                        {1000, 130},
                        {1032, 136},
                        {1056, 203},
                        {1100, 201},
                        {4096, 72}}) {
      Setup s(rows, k, n, seed++);
      const Reference ref = reference(s.p, sample_rows(rows, 64));
      for (FusedKernel kernel : {FusedKernel::warp_split, FusedKernel::cluster_split}) {
        INFO(rows << " x " << k << " -> " << n << ", " << name_of(kernel));
        const Verdict v = compare(ref, s.run(kernel), n, k);
        INFO(v.report);
        CHECK(v.passed);
      }
    }
  }
}

TEST_CASE("the warp split's block for weights past L2: two blocks an SM of 8 warps", "[ch11]") {
  // K * N at or past kWarpSplitDramWeights at up to 16 tokens; K on and off whole units, N on
  // and off whole blocks of 24 columns.
  static_assert(4096 * 4104 >= kWarpSplitDramWeights && 4100 * 4097 >= kWarpSplitDramWeights &&
                4128 * 4096 >= kWarpSplitDramWeights);
  std::uint64_t seed = 1170;
  for (std::int64_t rows : {1, 5, 16}) {
    for (auto [k, n] :
         {std::pair<std::int64_t, std::int64_t>{4096, 4104}, {4100, 4097}, {4128, 4096}}) {
      Setup s(rows, k, n, seed++);
      const Reference ref = reference(s.p, sample_rows(rows, 64));
      INFO(rows << " x " << k << " -> " << n);
      const Verdict v = compare(ref, s.run(FusedKernel::warp_split), n, k);
      INFO(v.report);
      CHECK(v.passed);
    }
  }
}

TEST_CASE("fused graph replays give the same bits: warps and blocks are added in a fixed order",
          "[ch11]") {
  // 16 tokens: the warp split's blocks; 40 and 64: the cluster kernel, ragged and aligned.
  for (auto [rows, k, n] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 576, 960},
                            {16, 2048, 2560},
                            {16, 4096, 4104},
                            {40, 1100, 1201},
                            {64, 2048, 2560}}) {
    Setup s(rows, k, n, 1190 + k);
    INFO(rows << " x " << k << " -> " << n << ": " << name_of(fused_kernel_for(rows, k, n)));
    const std::vector<__half> first = s.run(Path::fused);
    cudaStream_t stream = nullptr;
    NORMLAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    NORMLAB_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    s.layer.run(Path::fused, s.x.data(), rows, s.y.data(), stream);
    NORMLAB_CHECK(cudaStreamEndCapture(stream, &graph));
    NORMLAB_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    s.y.poison(stream);
    for (int replay = 0; replay < 5; ++replay)
      NORMLAB_CHECK(cudaGraphLaunch(exec, stream));
    NORMLAB_CHECK(cudaStreamSynchronize(stream));
    std::vector<__half> replayed(s.y.size());
    s.y.download(replayed.data());
    NORMLAB_CHECK(cudaGraphExecDestroy(exec));
    NORMLAB_CHECK(cudaGraphDestroy(graph));
    NORMLAB_CHECK(cudaStreamDestroy(stream));
    CHECK(std::memcmp(first.data(), replayed.data(), first.size() * sizeof(__half)) == 0);
  }
}

TEST_CASE("the statistics kernel writes 1/RMS of each row and nothing past them", "[ch11]") {
  for (std::int64_t k : {1, 7, 576, 1000, 4096, 8200}) {
    const Problem p = random_problem(37, k, 1, 1200 + k);
    DeviceBuffer<__half> x = on_device(p.x);
    DeviceBuffer<float> rstd(38);
    rstd.poison();
    row_rstd(x.data(), 37, k, p.eps, rstd.data(), nullptr);
    std::vector<float> got(38);
    rstd.download(got.data());
    std::vector<double> x_values(p.x.size());
    for (std::size_t i = 0; i < p.x.size(); ++i)
      x_values[i] = __half2float(p.x[i]);
    const std::vector<double> want =
        rmsnorm_forward(x_values, {.rows = 37, .cols = k, .eps = p.eps}).rstd;
    for (std::int64_t m = 0; m < 37; ++m) {
      const double exact = want[static_cast<std::size_t>(m)];
      // fp32 sum of k squares (k · u32 relative) and rsqrtf (2 ulp): half of that in rstd.
      INFO("k " << k << " row " << m);
      CHECK(std::fabs(got[m] - exact) <= exact * ((k + 8) * 0x1p-24));
    }
    CHECK(std::isnan(got[37]));  // the poison past the last row is untouched
  }
}

TEST_CASE("refusals name the argument and write nothing", "[ch11]") {
  Setup s(65, 576, 960, 1300);
  s.y.poison();
  CHECK_THROWS_WITH(s.layer.run(Path::fused, s.x.data(), 65, s.y.data(), nullptr),
                    Catch::Contains("'rows'") && Catch::Contains("64"));
  CHECK_THROWS_WITH(s.layer.run(Path::plain, s.x.data(), 66, s.y.data(), nullptr),
                    Catch::Contains("'rows'"));
  for (FusedKernel kernel : {FusedKernel::warp_split, FusedKernel::cluster_split}) {
    CHECK_THROWS_WITH(
        fused_rmsnorm_linear(kernel, s.x.data(), {}, 8, 576, 960, 1e-6f, s.y.data(), nullptr),
        Catch::Contains("'w.packed'"));
    CHECK_THROWS_WITH(fused_rmsnorm_linear(kernel, s.x.data(), {.packed = s.w_packed.data() + 1}, 8,
                                           576, 960, 1e-6f, s.y.data(), nullptr),
                      Catch::Contains("'w.packed'") && Catch::Contains("aligned"));
  }
  CHECK_THROWS_WITH(
      fused_rmsnorm_linear(s.x.data(), s.folded(), 8, 576, 960, 0.0f, s.y.data(), nullptr),
      Catch::Contains("'eps'"));
  CHECK_THROWS_WITH(row_rstd(s.x.data(), 4, 576, 0.0f, nullptr, nullptr),
                    Catch::Contains("'rstd'"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  std::vector<__half> after(s.y.size());
  s.y.download(after.data());
  CHECK(all_poison(after));
}
