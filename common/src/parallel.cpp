// SPDX-License-Identifier: Apache-2.0
#include "normlab/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace normlab {

void parallel_for(std::int64_t count, const std::function<void(std::int64_t)>& work) {
  const auto threads = std::min<std::int64_t>(
      count,
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::thread::hardware_concurrency())));
  if (threads <= 1) {
    for (std::int64_t i = 0; i < count; ++i)
      work(i);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (std::int64_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;  // stop handing out work
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  for (std::thread& t : pool)
    t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace normlab
