// SPDX-License-Identifier: Apache-2.0
// Chapter 11's measurement (bench.hpp).
#include "bench.hpp"

#include <algorithm>
#include <functional>

#include "empty_kernel.cuh"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "reference.hpp"

namespace normlab::ch11 {

namespace {

// [graph_timing]
// The launches of @p enqueue captured once as a CUDA graph, replayed `replays` times between
// two events per sample: microseconds a replay, the median of the samples. A graph replays the
// whole sequence (the two launches of plain and deferred, the one of fused) with no host work
// between them, as the paper timed both sides.
double time_graph(const std::function<void(cudaStream_t)>& enqueue, const BenchOptions& options) {
  cudaStream_t stream = nullptr;
  NORMLAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  NORMLAB_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  enqueue(stream);
  NORMLAB_CHECK(cudaStreamEndCapture(stream, &graph));
  NORMLAB_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  NORMLAB_CHECK(cudaEventCreate(&start));
  NORMLAB_CHECK(cudaEventCreate(&stop));
  std::vector<double> samples;
  for (int s = 0; s <= options.samples; ++s) {  // sample 0 warms up and is dropped
    NORMLAB_CHECK(cudaEventRecord(start, stream));
    for (int r = 0; r < options.replays; ++r)
      NORMLAB_CHECK(cudaGraphLaunch(exec, stream));
    NORMLAB_CHECK(cudaEventRecord(stop, stream));
    NORMLAB_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    NORMLAB_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (s > 0) samples.push_back(1000.0 * ms / options.replays);
  }
  NORMLAB_CHECK(cudaEventDestroy(stop));
  NORMLAB_CHECK(cudaEventDestroy(start));
  NORMLAB_CHECK(cudaGraphExecDestroy(exec));
  NORMLAB_CHECK(cudaGraphDestroy(graph));
  NORMLAB_CHECK(cudaStreamDestroy(stream));
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}
// [graph_timing]

}  // namespace

GraphFloor measure_floor(const BenchOptions& options) {
  return {.one_kernel = time_graph(ch09::launch_empty_kernel, options),
          .two_kernels = time_graph(
              [](cudaStream_t s) {
                ch09::launch_empty_kernel(s);
                ch09::launch_empty_kernel(s);
              },
              options)};
}

ShapeResult measure(const NormFunction& norm, std::int64_t tokens, std::int64_t k_cols,
                    std::int64_t n_cols, const BenchOptions& options, std::uint64_t seed) {
  const Problem p = random_problem(tokens, k_cols, n_cols, seed);
  const std::vector<__half> folded = fold_weights_fp16(p.g, p.w, k_cols, n_cols);
  DeviceBuffer<__half> x = on_device(p.x), g = on_device(p.g), w = on_device(p.w),
                       w_folded = on_device(folded),
                       w_packed = on_device(pack_weights(folded, k_cols, n_cols));
  DeviceBuffer<__half> y(static_cast<std::size_t>(tokens * n_cols));
  NormLinear layer(norm,
                   {.g = g.data(),
                    .w = w.data(),
                    .w_folded = w_folded.data(),
                    .w_packed = w_packed.data(),
                    .k_cols = k_cols,
                    .n_cols = n_cols,
                    .eps = p.eps},
                   tokens);
  layer.prepare(tokens);

  ShapeResult result{.tokens = tokens, .k_cols = k_cols, .n_cols = n_cols};
  result.row_scale = layer.row_scale(tokens);
  result.pick = choose_path(tokens, k_cols, n_cols, fused_available());
  const Reference ref = reference(p, sample_rows(tokens, options.most_rows_checked));
  result.rows_checked = static_cast<std::int64_t>(ref.rows_checked.size());
  std::vector<__half> host_y(y.size());
  // Runs `enqueue` once into a poisoned y, compares with the reference, and times it if it passed.
  const auto verify_and_time = [&](PathResult& r,
                                   const std::function<void(cudaStream_t)>& enqueue) {
    y.poison();
    enqueue(nullptr);
    NORMLAB_CHECK(cudaDeviceSynchronize());
    y.download(host_y.data());
    const Verdict verdict = compare(ref, host_y, n_cols, k_cols);
    r.passed = verdict.passed;
    r.verdict = verdict.report;
    if (r.passed) r.microseconds = time_graph(enqueue, options);
  };
  for (Path path : {Path::plain, Path::deferred, Path::fused}) {
    PathResult r{.path = path, .ran = path != Path::fused || tokens <= kFusedMaxRows};
    if (r.ran) {
      verify_and_time(r, [&](cudaStream_t s) { layer.run(path, x.data(), tokens, y.data(), s); });
    }
    result.paths.push_back(r);
  }
  for (FusedKernel kernel : {FusedKernel::warp_split, FusedKernel::cluster_split}) {
    const bool asked = std::find(options.fused_kernels.begin(), options.fused_kernels.end(),
                                 kernel) != options.fused_kernels.end();
    const bool takes = tokens <= kFusedMaxRows && fused_kernel_runs_here(kernel);
    KernelResult k{.kernel = kernel, .result = {.path = Path::fused, .ran = asked && takes}};
    if (k.result.ran) {
      verify_and_time(k.result, [&](cudaStream_t s) {
        fused_rmsnorm_linear(kernel, x.data(), {.packed = w_packed.data()}, tokens, k_cols, n_cols,
                             p.eps, y.data(), s);
      });
    }
    result.fused_kernels.push_back(k);
  }
  LtGemm gemm;
  gemm.prepare(tokens, k_cols, n_cols);
  result.gemm_alone_us = time_graph(
      [&](cudaStream_t s) {
        gemm.plain(x.data(), w_folded.data(), y.data(), tokens, k_cols, n_cols, s);
      },
      options);
  return result;
}

}  // namespace normlab::ch11
