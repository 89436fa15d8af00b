// SPDX-License-Identifier: Apache-2.0
#include "normlab/timing.hpp"

#include <algorithm>
#include <vector>

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/device.hpp"

namespace normlab {

namespace {

// [flush_l2]
// Writing a buffer twice the size of L2 evicts whatever the previous repetition left there.
void flush_l2(cudaStream_t stream) {
  static DeviceBuffer<unsigned char> scratch(2 * static_cast<std::size_t>(l2_cache_bytes()));
  NORMLAB_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.bytes(), stream));
}
// [flush_l2]

class Event {
 public:
  Event() { NORMLAB_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

Timing time_on_device(const std::function<void(cudaStream_t)>& launch, const TimingOptions& options,
                      cudaStream_t stream) {
  for (int i = 0; i < options.warmup; ++i)
    launch(stream);
  NORMLAB_CHECK(cudaStreamSynchronize(stream));

  const int reps = std::max(options.repetitions, 1);
  std::vector<Event> starts(static_cast<std::size_t>(reps));
  std::vector<Event> stops(static_cast<std::size_t>(reps));
  // [timed_loop]
  for (int i = 0; i < reps; ++i) {
    if (options.flush_l2) flush_l2(stream);
    queue_head_start(options.head_start_cycles, stream);
    NORMLAB_CHECK(cudaEventRecord(starts[static_cast<std::size_t>(i)].get(), stream));
    launch(stream);
    NORMLAB_CHECK(cudaEventRecord(stops[static_cast<std::size_t>(i)].get(), stream));
  }
  // [timed_loop]
  NORMLAB_CHECK(cudaStreamSynchronize(stream));

  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    float ms = 0.0f;
    NORMLAB_CHECK(cudaEventElapsedTime(&ms, starts[static_cast<std::size_t>(i)].get(),
                                       stops[static_cast<std::size_t>(i)].get()));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const std::size_t mid = times.size() / 2;
  const double median = times.size() % 2 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
  return {median, times.front(), reps};
}

}  // namespace normlab
