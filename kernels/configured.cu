// SPDX-License-Identifier: Apache-2.0
// The configured launcher (taught in chapter 09): every width and every batch.
//
// The general launcher runs every call the same way: one block per row, sized to the row, with one
// register budget. That is right for a 4096-wide row among thousands, and wrong at both ends:
// a 576-wide row leaves most of a block idle behind two barriers, a batch of one row leaves all
// but one SM idle, and one register budget for every width caps the blocks an SM can hold.
// These kernels keep the general launcher's row I/O and arithmetic and choose, per call, how rows
// are mapped to threads (configs.hpp: the table; lanes.cu and block.cu: the kernels). This file
// holds the typed launchers: check the arguments, describe the call, choose, launch.
#include "configured.cuh"

#include <stdexcept>
#include <string>

#include "configs.hpp"
#include "configured_entries.hpp"
#include "configured_launch.cuh"
#include "general_launch.cuh"
#include "normlab/check.hpp"
#include "typed_call.hpp"
#include "validate_tensors.hpp"

namespace normlab::kernels::configured {

namespace {

// [problem]
// What choose() needs to know of a call: its shape, its element size, whether every row of
// every tensor is a whole number of aligned vectors (the general launcher's test), the chunks a row
// of x spans (one more when rows start off the 16-byte grid), whether it adds a residual, and
// whether it is a LayerNorm.
template <typename T, typename P>
Problem problem_of(const Tensors<T, P>& t, bool add, bool centre) {
  const auto element = static_cast<std::int64_t>(sizeof(T));
  return {.rows = t.rows,
          .cols = t.cols,
          .element_bytes = static_cast<int>(element),
          .aligned = vectors_aligned(t),
          .chunks = most_chunks(t.x, t.x_stride, t.cols, element, t.x_group_rows, t.x_group_stride),
          .add = add,
          .centre = centre};
}
// [problem]

// @p t without the fields the op does not read: the residual's (plain norms).
template <bool kAdd, typename T, typename P>
Tensors<T, P> used_by_op(Tensors<T, P> t) {
  if (!kAdd) t.residual = t.residual_out = nullptr;
  return t;
}

// Validates (an RMSNorm bias refused), clears the fields the op does not use, chooses (or takes the
// forced configuration) and launches.
template <bool kCentre, bool kAdd, typename T, typename P>
void run(const char* fn, const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  validate(fn, t, kAdd);
  refuse_rmsnorm_bias(fn, t, kCentre);
  int forced = -1;
  if (config != nullptr) {
    forced = config_index(config);
    check_argument(forced >= 0, fn, "config", std::string("no configuration named ") + config);
  }
  if (t.rows == 0) return;
  const Tensors<T, P> used = used_by_op<kAdd>(t);
  const Problem p = problem_of(used, kAdd, kCentre);
  const Choice choice = forced >= 0 ? configure(forced, p) : choose(p);
  check_argument(choice.why.rfind("refused:", 0) != 0, fn, "config", choice.why);
  switch (kConfigs[choice.config].kind) {
    case Kind::narrow:
      return launch_narrow<T, P, kCentre, kAdd>(used, choice, stream);
    case Kind::block:
      return launch_block<T, P, kCentre, kAdd>(used, choice, stream);
    case Kind::slim:
      return launch_slim<T, P, kCentre, kAdd>(used, choice, stream);
    case Kind::staged:
      return launch_staged<T, P, kCentre, kAdd>(used, choice, stream);
    case Kind::wide:
      if constexpr (kAdd) {
        return kCentre ? kernels::add_layernorm(used, stream) : kernels::add_rmsnorm(used, stream);
      } else {
        return kCentre ? kernels::layernorm(used, stream) : kernels::rmsnorm(used, stream);
      }
  }
}

// configured_launcher() for one op and pairing: configuration @p config sized for @p t once, and
// a launch of it that takes each call's tensors as they come.
template <bool kCentre, bool kAdd, typename T, typename P>
Launcher launcher_for(const Tensors<T, P>& t, int config) {
  const Tensors<T, P> used = used_by_op<kAdd>(t);
  const Choice choice = configure(config, problem_of(used, kAdd, kCentre));
  const Kind kind = kConfigs[choice.config].kind;
  const bool rmsnorm_bias = !kCentre && t.bias != nullptr;  // refused by the entry's launch
  if (!choice.why.empty() || used.rows == 0 || kind == Kind::wide || rmsnorm_bias) return {};
  return [choice, kind](const NormCall& call, cudaStream_t stream) {
    const Tensors<T, P> now = used_by_op<kAdd>(tensors_of<T, P>(call));
    if (kind == Kind::narrow) return launch_narrow<T, P, kCentre, kAdd>(now, choice, stream);
    if (kind == Kind::slim) return launch_slim<T, P, kCentre, kAdd>(now, choice, stream);
    if (kind == Kind::staged) return launch_staged<T, P, kCentre, kAdd>(now, choice, stream);
    launch_block<T, P, kCentre, kAdd>(now, choice, stream);
  };
}

}  // namespace

Launcher configured_launcher(const NormCall& call, int config) {
  Launcher launcher;
  with_typed_tensors("kernels::configured::configured_launcher", call, [&](const auto& t) {
    switch (call.op) {
      case Op::rmsnorm:
        launcher = launcher_for<false, false>(t, config);
        break;
      case Op::layernorm:
        launcher = launcher_for<true, false>(t, config);
        break;
      case Op::add_rmsnorm:
        launcher = launcher_for<false, true>(t, config);
        break;
      default:
        launcher = launcher_for<true, true>(t, config);
    }
  });
  return launcher;
}

template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<false, false>("kernels::configured::rmsnorm", t, stream, config);
}

template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<true, false>("kernels::configured::layernorm", t, stream, config);
}

template <typename T, typename P>
void add_rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<false, true>("kernels::configured::add_rmsnorm", t, stream, config);
}

template <typename T, typename P>
void add_layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config) {
  run<true, true>("kernels::configured::add_layernorm", t, stream, config);
}

#define NORMLAB_CONFIGURED_LAUNCHERS(T, P)                                    \
  template void rmsnorm(const Tensors<T, P>&, cudaStream_t, const char*);     \
  template void layernorm(const Tensors<T, P>&, cudaStream_t, const char*);   \
  template void add_rmsnorm(const Tensors<T, P>&, cudaStream_t, const char*); \
  template void add_layernorm(const Tensors<T, P>&, cudaStream_t, const char*);
NORMLAB_CONFIGURED_LAUNCHERS(float, float)
NORMLAB_CONFIGURED_LAUNCHERS(__half, __half)
NORMLAB_CONFIGURED_LAUNCHERS(__half, float)
NORMLAB_CONFIGURED_LAUNCHERS(__nv_bfloat16, __nv_bfloat16)
NORMLAB_CONFIGURED_LAUNCHERS(__nv_bfloat16, float)

}  // namespace normlab::kernels::configured
