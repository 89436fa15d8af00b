// SPDX-License-Identifier: Apache-2.0
// Known-wrong backward kernels (chapter 08): each runs a correct kernel, chapter 08's default or
// chapter 10's row over a cluster, then redoes one step wrongly, so that the one wrong output is
// the only difference.
#include "backward_wrong.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <string>

#include "backward_launch.cuh"  // chapter 08's sum_columns and kernels
#include "general_launch.cuh"   // chapter 07's threads_for_chunks
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/registry.hpp"
#include "typed_gradients.hpp"

namespace normlab::known_wrong {

namespace {

using device::from_float;
using device::to_float;
using kernels::backward::Gradients;

constexpr int kThreads = 256;

// dx = rstd * (g - mean(g)): the x_hat * mean(g * x_hat) term dropped. One block per row.
template <typename T, bool kCentre>
__global__ void dx_without_projection(const Gradients<T, T> g) {
  const std::int64_t r = blockIdx.x;
  const T* dy = g.dy + r * g.dy_stride;
  auto scale = [&](std::int64_t c) {
    if (g.weight == nullptr) return 1.0f;
    return to_float(g.weight[c]) + (g.weight_plus_one ? 1.0f : 0.0f);
  };
  float sum_g = 0.0f;
  for (std::int64_t c = threadIdx.x; c < g.cols; c += blockDim.x)
    sum_g += to_float(dy[c]) * scale(c);
  const float mean_g = kCentre ? device::block_sum(sum_g) / static_cast<float>(g.cols) : 0.0f;
  const float rstd = g.saved_rstd[r];
  for (std::int64_t c = threadIdx.x; c < g.cols; c += blockDim.x) {
    float value = rstd * (to_float(dy[c]) * scale(c) - mean_g);
    if (g.dresidual != nullptr) value += to_float(g.dresidual[r * g.dresidual_stride + c]);
    g.dx[r * g.dx_stride + c] = from_float<T>(value);
  }
}

// dweight (and dbias) summed over rows by one thread per column in a bf16 accumulator: once
// the sum is large, each small term is rounded away.
template <typename T, bool kCentre>
__global__ void bf16_column_sums(const Gradients<T, T> g) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= g.cols) return;
  __nv_bfloat16 dweight = __float2bfloat16_rn(0.0f), dbias = dweight;
  for (std::int64_t r = 0; r < g.rows; ++r) {
    const float mean = kCentre ? g.saved_mean[r] : 0.0f;
    const float xhat = (to_float(g.x[r * g.x_stride + c]) - mean) * g.saved_rstd[r];
    const float d = to_float(g.dy[r * g.dy_stride + c]);
    dweight = __float2bfloat16_rn(__bfloat162float(dweight) + d * xhat);
    dbias = __float2bfloat16_rn(__bfloat162float(dbias) + d);
  }
  if (g.dweight != nullptr) g.dweight[c] = from_float<T>(__bfloat162float(dweight));
  if (kCentre && g.dbias != nullptr) g.dbias[c] = from_float<T>(__bfloat162float(dbias));
}

// Chapter 08's kernel with a hand-on that reads, adds and writes without atomics: blocks that
// add to the same column at the same time lose each other's sums.
struct AddWithoutAtomics {
  __device__ static float* row(float* sums, std::int64_t) { return sums; }
  __device__ static void put(float* at, float value) { *at += value; }
};

template <typename T, bool kCentre>
void redo_wrongly(const NormCall& call, BackwardBug bug, cudaStream_t stream) {
  const Gradients<T, T> g = kernels::backward::gradients_of<T, T>(call);
  const auto rows = static_cast<unsigned int>(call.rows);
  switch (bug) {
    case BackwardBug::no_projection:
      dx_without_projection<T, kCentre><<<rows, kThreads, 0, stream>>>(g);
      break;
    case BackwardBug::bf16_dweight:
      bf16_column_sums<T, kCentre>
          <<<static_cast<unsigned int>((call.cols + kThreads - 1) / kThreads), kThreads, 0,
             stream>>>(g);
      break;
    case BackwardBug::one_partial:  // the base left its partial rows in scratch, dweight's first
      kernels::backward::sum_columns(g, g.scratch, 1, false, stream);  // dweight only
      break;
    case BackwardBug::racy_atomicless: {
      const unsigned int threads =
          kernels::threads_for_chunks(call.cols / device::Vector<T>::kWidth, 2);
      NORMLAB_CHECK(cudaMemsetAsync(g.scratch, 0, 2 * g.cols * sizeof(float), stream));
      kernels::backward::backward_rows<T, T, 2, kCentre, true, AddWithoutAtomics>
          <<<rows, threads, 0, stream>>>(g, g.scratch, 1);
      NORMLAB_CHECK_LAUNCH();
      kernels::backward::sum_columns(g, g.scratch, 1, kCentre, stream);
      break;
    }
  }
  NORMLAB_CHECK_LAUNCH();
}

// Runs @p base, then the wrong step of @p bug over its outputs. @p fn names the function in a
// refusal.
void launch(const KernelEntry& base, const char* fn, const NormCall& call, BackwardBug bug,
            cudaStream_t stream) {
  check_argument(call.rows >= 1, fn, "rows", "must be at least 1");
  check_argument(call.dtype == DType::f32 || call.dtype == DType::bf16, fn, "dtype",
                 "must be fp32 or bf16");
  check_argument(call.weight_dtype == call.dtype, fn, "weight_dtype", "must be the input dtype");
  check_argument(call.dx != call.dy, fn, "dx",
                 "must not be over dy: the wrong step reads dy after the base kernel wrote dx");
  base.launch(call, stream);
  const bool centre = call.op == Op::layernorm_backward;
  if (call.dtype == DType::f32) {
    return centre ? redo_wrongly<float, true>(call, bug, stream)
                  : redo_wrongly<float, false>(call, bug, stream);
  }
  centre ? redo_wrongly<__nv_bfloat16, true>(call, bug, stream)
         : redo_wrongly<__nv_bfloat16, false>(call, bug, stream);
}

std::string name_of(BackwardBug bug) {
  const char* bugs[] = {"no_projection", "bf16_dweight", "one_partial", "racy_atomicless"};
  return bugs[static_cast<int>(bug)];
}

}  // namespace

KernelEntry backward(Op op, BackwardBug bug) {
  const KernelEntry& base = *default_kernel(op);
  return {.name = std::string("known_wrong_") + normlab::name_of(op) + "_" + name_of(bug),
          .chapter = 8,
          .summary = "chapter 08's backward with one step done wrongly",
          .op = op,
          .can = {.dtypes = {DType::f32, DType::bf16},
                  .optional_parameters = true,
                  .weight_plus_one = true,
                  .alignment_bytes = 16,
                  .max_cols = 4096,
                  .residual_gradient = true},
          .launch =
              [base, bug](const NormCall& call, cudaStream_t stream) {
                const char* fn = "known_wrong::backward";
                check_argument(call.cols % 8 == 0 && call.cols <= 4096, fn, "cols",
                               "must be a multiple of 8, at most 4096");
                launch(base, fn, call, bug, stream);
              },
          .scratch_bytes =
              [base](const Shape& s) {
                // The default kernel's partial rows, and at least the two rows the racy sums need.
                return std::max(base.scratch_bytes(s),
                                static_cast<std::size_t>(2 * s.cols) * sizeof(float));
              }};
}

KernelEntry cluster_backward(Op op, BackwardBug bug) {
  const char* fn = "known_wrong::cluster_backward";
  check_argument(is_backward(op), fn, "op", "must be rmsnorm_backward or layernorm_backward");
  check_argument(bug != BackwardBug::racy_atomicless, fn, "bug",
                 "must not be racy_atomicless: it redoes the sums with chapter 08's row kernel, "
                 "which holds at most 4096 columns");
  const std::string base_name = std::string("ch10_") + normlab::name_of(op);
  const KernelEntry* found = find_kernel(base_name);
  check_argument(found != nullptr, fn, "op", [&] { return "has no " + base_name + " registered"; });
  const KernelEntry& base = *found;
  Capabilities can = base.can;  // sm_90, rows up to 512 KiB, options, strides and alignment
  can.dtypes = {DType::f32, DType::bf16};  // the wrong steps' instantiations
  can.fp32_parameters = false;             // and theirs only: parameters in x's dtype
  can.narrow_parameters = false;
  can.in_place = false;        // the wrong step reads dy after the base wrote dx
  can.other_dy_dtype = false;  // and reads dy in x's dtype
  return {.name = "known_wrong_" + base.name + "_" + name_of(bug),
          .chapter = 10,
          .summary = "chapter 10's wide backward with one step done wrongly",
          .op = op,
          .can = can,
          .launch = [base, bug, fn](const NormCall& call,
                                    cudaStream_t stream) { launch(base, fn, call, bug, stream); },
          .scratch_bytes = base.scratch_bytes};  // one_partial reads the base's partial rows
}

}  // namespace normlab::known_wrong
