// SPDX-License-Identifier: Apache-2.0
// Test kernels for exercise 03: each thread hands warp_sum or block_sum a known value and
// writes back what it got, so the grader can check every thread's answer.
#include "ex03_probes.hpp"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "reductions.cuh"

namespace normlab::ex03_probes {

namespace {

__host__ __device__ float value_of(int thread, int call) {
  return static_cast<float>((thread * 37 + call * 11) % 101 + 1);
}

__global__ void warp_sum_probe(float* got) {
  got[threadIdx.x] = ex03::warp_sum(value_of(static_cast<int>(threadIdx.x), 0));
}

// The calls follow each other with no barrier in between: block_sum must keep a call from
// overwriting shared slots that the previous call is still reading.
__global__ void block_sum_probe(float* got, int calls) {
  for (int call = 0; call < calls; ++call) {
    got[call * blockDim.x + threadIdx.x] =
        ex03::block_sum(value_of(static_cast<int>(threadIdx.x), call));
  }
}

// Fills the shared memory of every SM with a large value. A block_sum that reads a slot no
// warp wrote in this call (a block of 96 threads has 3 warps, not 32) then adds garbage instead
// of a lucky zero.
__global__ void scribble_shared(int floats) {
  extern __shared__ float scratch[];
  volatile float* shared = scratch;
  for (int i = static_cast<int>(threadIdx.x); i < floats; i += static_cast<int>(blockDim.x)) {
    shared[i] = 1.0e6f;
  }
}

void scribble_every_sm() {
  constexpr int kBytes = 32 * 1024;
  constexpr int kBlocksEnough = 1024;  // several per SM on any GPU
  scribble_shared<<<kBlocksEnough, 256, kBytes>>>(kBytes / static_cast<int>(sizeof(float)));
  NORMLAB_CHECK_LAUNCH();
}

std::vector<float> download(const DeviceBuffer<float>& buffer) {
  std::vector<float> host(buffer.size());
  NORMLAB_CHECK(cudaDeviceSynchronize());
  buffer.download(host.data());
  return host;
}

}  // namespace

float probe_value(int thread, int call) {
  return value_of(thread, call);
}

std::vector<float> run_warp_sum(int threads) {
  DeviceBuffer<float> got(static_cast<std::size_t>(threads));
  got.poison();
  warp_sum_probe<<<1, threads>>>(got.data());
  NORMLAB_CHECK_LAUNCH();
  return download(got);
}

std::vector<float> run_block_sum(int threads, int calls) {
  DeviceBuffer<float> got(static_cast<std::size_t>(threads) * calls);
  got.poison();
  scribble_every_sm();
  block_sum_probe<<<1, threads>>>(got.data(), calls);
  NORMLAB_CHECK_LAUNCH();
  return download(got);
}

}  // namespace normlab::ex03_probes
