// SPDX-License-Identifier: Apache-2.0
// Chapter 09: every width and every batch.
//
// Chapter 07 runs every call the same way: one block per row, sized to the row, with one
// register budget. That is right for a 4096-wide row among thousands, and wrong at both ends:
// a 576-wide row leaves most of a block idle behind two barriers, a batch of one row leaves all
// but one SM idle, and one register budget for every width caps the blocks an SM can hold.
// This chapter keeps chapter 07's tensor I/O and arithmetic and chooses, per call, how rows are
// mapped to threads (choose.hpp: the table; narrow.cu and block.cu: the kernels). This file
// holds the typed launchers: check the arguments, describe the call, choose, launch.
#include "ch09.cuh"

#include <stdexcept>
#include <string>

#include "choose.hpp"
#include "dispatch.cuh"
#include "launch.cuh"
#include "normlab/check.hpp"
#include "normlab/timing.hpp"
#include "validate.hpp"

namespace normlab::ch09 {

namespace {

// [problem]
// What choose() needs to know of a call: its shape, its element size, whether every row of
// every tensor is a whole number of aligned vectors (chapter 07's test), the chunks a row
// of x spans (one more when rows start off the 16-byte grid), whether it adds a residual, and
// whether it is a LayerNorm.
template <typename T, typename P>
Problem problem_of(const Tensors<T, P>& t, bool add, bool centre) {
  const auto element = static_cast<std::int64_t>(sizeof(T));
  return {.rows = t.rows,
          .cols = t.cols,
          .element_bytes = static_cast<int>(element),
          .aligned = ch07::vectors_aligned(t),
          .chunks = ch07::most_chunks(t.x, t.x_stride, t.cols, element),
          .add = add,
          .centre = centre};
}
// [problem]

// Validates, clears the fields the op does not use, chooses (or takes the forced
// configuration) and launches.
template <bool kCentre, bool kAdd, typename T, typename P>
void run(const char* fn, const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  ch07::validate(fn, t, kAdd);
  int forced = -1;
  if (config != nullptr) {
    forced = config_index(config);
    check_argument(forced >= 0, fn, "config", std::string("no configuration named ") + config);
  }
  if (t.rows == 0) return;
  Tensors<T, P> used = t;
  if (!kAdd) used.residual = used.residual_out = nullptr;
  if (!kCentre) used.bias = nullptr;
  const Problem p = problem_of(used, kAdd, kCentre);
  const Choice choice = forced >= 0 ? configure(forced, p) : choose(p);
  check_argument(choice.why.rfind("refused:", 0) != 0, fn, "config", choice.why);
  switch (kConfigs[choice.config].kind) {
    case Kind::narrow:
      return launch_narrow<T, P, kCentre, kAdd>(used, choice, stream);
    case Kind::block:
      return launch_block<T, P, kCentre, kAdd>(used, choice, stream);
    case Kind::wide:
      if constexpr (kAdd) {
        return kCentre ? ch07::add_layernorm(used, stream) : ch07::add_rmsnorm(used, stream);
      } else {
        return kCentre ? ch07::layernorm(used, stream) : ch07::rmsnorm(used, stream);
      }
  }
}

__global__ void empty_kernel() {}

}  // namespace

template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<false, false>("ch09::rmsnorm", t, stream, config);
}

template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<true, false>("ch09::layernorm", t, stream, config);
}

template <typename T, typename P>
void add_rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<false, true>("ch09::add_rmsnorm", t, stream, config);
}

template <typename T, typename P>
void add_layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<true, true>("ch09::add_layernorm", t, stream, config);
}

void launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  NORMLAB_CHECK_LAUNCH();
}

// [empty]
double empty_kernel_microseconds(cudaStream_t stream) {
  const Timing timing = time_on_device(
      launch_empty_kernel, {.warmup = 10, .repetitions = 200, .flush_l2 = false}, stream);
  return timing.median_ms * 1000.0;
}
// [empty]

#define NORMLAB_CH09_LAUNCHERS(T, P)                                          \
  template void rmsnorm(const Tensors<T, P>&, cudaStream_t, const char*);     \
  template void layernorm(const Tensors<T, P>&, cudaStream_t, const char*);   \
  template void add_rmsnorm(const Tensors<T, P>&, cudaStream_t, const char*); \
  template void add_layernorm(const Tensors<T, P>&, cudaStream_t, const char*);
NORMLAB_CH09_LAUNCHERS(float, float)
NORMLAB_CH09_LAUNCHERS(__half, __half)
NORMLAB_CH09_LAUNCHERS(__half, float)
NORMLAB_CH09_LAUNCHERS(__nv_bfloat16, __nv_bfloat16)
NORMLAB_CH09_LAUNCHERS(__nv_bfloat16, float)

}  // namespace normlab::ch09
