// SPDX-License-Identifier: Apache-2.0
/// @file ex03_probes.hpp
/// @brief Test kernels for exercise 03: warp_sum and block_sum run directly on values whose sums
/// are known exactly.
#pragma once

#include <vector>

namespace normlab::ex03_probes {

/// The value thread @p thread adds in call @p call of a probe: a small positive integer, so
/// every partial sum is exact in fp32 and the order of the additions cannot matter.
float probe_value(int thread, int call);

/// Runs warp_sum once in a block of @p threads threads; element t is what thread t got.
std::vector<float> run_warp_sum(int threads);

/// Runs block_sum @p calls times back to back in a block of @p threads threads; element
/// call * threads + t is what thread t got from that call.
std::vector<float> run_block_sum(int threads, int calls);

}  // namespace normlab::ex03_probes
