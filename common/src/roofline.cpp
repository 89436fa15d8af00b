// SPDX-License-Identifier: Apache-2.0
#include "normlab/roofline.hpp"

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"

namespace normlab {

// [copy_roof]
const CopyRoof& copy_roof() {
  static const CopyRoof roof = [] {
    // 512 MiB each way: far past any L2, long enough that launch overhead is noise.
    constexpr std::size_t kBytes = std::size_t{512} << 20;
    DeviceBuffer<unsigned char> source(kBytes), destination(kBytes);
    NORMLAB_CHECK(cudaMemset(source.data(), 1, kBytes));
    CopyRoof result;
    result.bytes = 2 * static_cast<std::int64_t>(kBytes);
    result.timing = time_on_device(
        [&](cudaStream_t stream) {
          NORMLAB_CHECK(cudaMemcpyAsync(destination.data(), source.data(), kBytes,
                                        cudaMemcpyDeviceToDevice, stream));
        },
        {.warmup = 3, .repetitions = 20, .flush_l2 = false});
    result.gbps = gigabytes_per_second(static_cast<double>(result.bytes), result.timing.median_ms);
    return result;
  }();
  return roof;
}
// [copy_roof]

double gigabytes_per_second(double bytes, double milliseconds) {
  return milliseconds > 0.0 ? bytes / (milliseconds * 1e6) : 0.0;
}

double percent_of_copy_roof(double gbps) {
  return 100.0 * gbps / copy_roof().gbps;
}

}  // namespace normlab
