// SPDX-License-Identifier: Apache-2.0
// Chapter 00's registry entries: the copy roofs and the eager baseline.
#include <vector>

#include "ch00.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch00 {

std::vector<KernelEntry> entries() {
  std::vector<KernelEntry> entries;
  // cudaMemcpy2DAsync takes any pitch; overlapping source and destination are undefined for it,
  // so not in place.
  entries.push_back({.name = "ch00_copy_memcpy",
                     .chapter = 0,
                     .summary = "cudaMemcpy2DAsync device to device: the copy roof",
                     .op = Op::copy,
                     .launch = [](const NormCall& c, cudaStream_t s) {
                       copy_memcpy(static_cast<const float*>(c.x), c.x_stride,
                                   static_cast<float*>(c.y), c.y_stride, c.rows, c.cols, s);
                     }});
  // One contiguous block moved in float4s from 16-byte aligned bases: no strides, 16 bytes of
  // alignment; x and y are __restrict__, so not in place.
  entries.push_back({.name = "ch00_copy_kernel",
                     .chapter = 0,
                     .summary = "hand-written float4 grid-stride copy",
                     .op = Op::copy,
                     .can = {.strided = false, .alignment_bytes = 16},
                     .launch = [](const NormCall& c, cudaStream_t s) {
                       check_argument(c.x_stride == c.cols && c.y_stride == c.cols,
                                      "ch00_copy_kernel", "x_stride/y_stride",
                                      "must equal cols (the kernel copies one contiguous block)");
                       copy_kernel(static_cast<const float*>(c.x), static_cast<float*>(c.y), c.rows,
                                   c.cols, s);
                     }});
  // In place: y is written only by the fifth launch, from the temporary, after every read of x
  // (launches on one stream run in order).
  entries.push_back({.name = "ch00_rmsnorm_eager",
                     .chapter = 0,
                     .summary = "five launches, two temporaries (eager framework)",
                     .op = Op::rmsnorm,
                     .can = {.in_place = true, .max_rows = kMaxRowsOneBlockPerRow},
                     .launch =
                         [](const NormCall& c, cudaStream_t s) {
                           validate_no_weight_plus_one("ch00_rmsnorm_eager", c.weight_plus_one);
                           rmsnorm_eager(static_cast<const float*>(c.x), c.x_stride,
                                         static_cast<const float*>(c.weight),
                                         static_cast<float*>(c.y), c.y_stride, c.rows, c.cols,
                                         c.eps, s);
                         },
                     .baseline = true});
  return entries;
}

}  // namespace normlab::ch00
