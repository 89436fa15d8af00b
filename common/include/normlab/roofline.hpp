// SPDX-License-Identifier: Apache-2.0
/// @file roofline.hpp
/// @brief The copy roof: device-to-device copy bandwidth of this GPU, measured once per
/// process, against which every kernel's achieved bandwidth is scored.
#pragma once

#include <cstdint>

#include "normlab/timing.hpp"

namespace normlab {

struct CopyRoof {
  double gbps = 0.0;       ///< (bytes read + bytes written) / median time, in GB/s (1e9)
  std::int64_t bytes = 0;  ///< bytes read + written by one copy
  Timing timing;
};

/// Measures cudaMemcpyAsync device-to-device on a buffer far larger than L2, the first time
/// it is called in a process; later calls return the same figure.
const CopyRoof& copy_roof();

/// Achieved bandwidth in GB/s for @p bytes moved in @p milliseconds.
double gigabytes_per_second(double bytes, double milliseconds);

/// @p gbps as a percentage of copy_roof().gbps.
double percent_of_copy_roof(double gbps);

}  // namespace normlab
