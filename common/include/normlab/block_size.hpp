// SPDX-License-Identifier: Apache-2.0
/// @file block_size.hpp
/// @brief Block sizes chosen at run time for kernels whose block size is a template parameter.
#pragma once

#include <array>
#include <type_traits>
#include <utility>

#include "normlab/arguments.hpp"

namespace normlab {

/// The block sizes (threads per block) the block-per-row kernels of chapters 02 and 03 are
/// compiled for: whole warps, a power of two for the tree, at most the hardware's 1024.
inline constexpr std::array<int, 4> kBlockSizes{128, 256, 512, 1024};

/// Calls @p launch with std::integral_constant<int, threads>, so that a kernel templated on its
/// block size gets it as a compile-time constant. @p threads must be one of kBlockSizes (the
/// caller validates it first with validate_block_size).
template <typename Launch>
void with_block_size(int threads, Launch&& launch) {
  switch (threads) {
    case 128:
      std::forward<Launch>(launch)(std::integral_constant<int, 128>{});
      break;
    case 256:
      std::forward<Launch>(launch)(std::integral_constant<int, 256>{});
      break;
    case 512:
      std::forward<Launch>(launch)(std::integral_constant<int, 512>{});
      break;
    default:
      std::forward<Launch>(launch)(std::integral_constant<int, 1024>{});
      break;
  }
}

}  // namespace normlab
