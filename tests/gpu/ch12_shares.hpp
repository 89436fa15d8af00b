// SPDX-License-Identifier: Apache-2.0
/// @file ch12_shares.hpp
/// @brief What chapter 12's tests share, on one GPU (test_ch12) and across GPUs
/// (test_ch12_nccl): the ops and dtype pairings, a case, and a rank's results poisoned again or
/// checked to be untouched.
#pragma once

#include <cstdint>
#include <vector>

#include "normlab/buffer.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/runner.hpp"
#include "slices.hpp"

namespace normlab::ch12_shares {

inline constexpr Op kOps[] = {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm};

struct DTypes {
  DType dtype, weight_dtype;
};
/// Every pairing chapter 07 takes: parameters in the activations' dtype or in fp32.
inline constexpr DTypes kPairings[] = {{DType::f32, DType::f32},
                                       {DType::f16, DType::f16},
                                       {DType::f16, DType::f32},
                                       {DType::bf16, DType::bf16},
                                       {DType::bf16, DType::f32}};

/// @p op on rows x cols in pairing @p d, statistics asked for.
inline Case make_case(Op op, DTypes d, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(op, rows, cols, d.dtype);
  c.shape.weight_dtype = d.weight_dtype;
  c.statistics = true;
  c.input.seed = seed;
  return c;
}

/// Calls @p visit with the device buffer of each of @p share's results in case @p c.
template <typename Share, typename Visit>
void for_each_result(const Case& c, Share& share, Visit&& visit) {
  for (const TensorSpec& spec : tensors_of(c.op))
    if (present(spec, c) && spec.role != Role::input)
      visit(share.tensors[static_cast<int>(spec.tensor)]);
}

inline bool all_poison(const DeviceBuffer<unsigned char>& buffer) {
  std::vector<unsigned char> bytes(buffer.bytes());
  buffer.download(bytes.data());
  for (unsigned char b : bytes)
    if (b != kPoisonByte) return false;
  return true;
}

/// Whether @p share's results and exchange buffer, on the current GPU, hold nothing but poison.
inline bool untouched(const Case& c, const ch12::RankShare& share) {
  bool poison = all_poison(share.exchange);
  for_each_result(c, share, [&](const DeviceBuffer<unsigned char>& result) {
    poison = poison && all_poison(result);
  });
  return poison;
}

}  // namespace normlab::ch12_shares
