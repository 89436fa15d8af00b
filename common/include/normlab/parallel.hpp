// SPDX-License-Identifier: Apache-2.0
/// @file parallel.hpp
/// @brief Host work spread over every CPU core: input generation and the float64 reference
/// of a 2e9-element problem take minutes on one core.
#pragma once

#include <cstdint>
#include <functional>

namespace normlab {

/// Calls @p work(i) once for every i in [0, @p count), on up to hardware_concurrency threads.
/// Each index runs on exactly one thread; which thread does not matter to a caller that writes
/// only what index i owns. Rethrows the first exception a call threw, after all have stopped.
void parallel_for(std::int64_t count, const std::function<void(std::int64_t)>& work);

}  // namespace normlab
