// SPDX-License-Identifier: Apache-2.0
/// @file plan_cache.hpp
/// @brief The plans normlab::plan and normlab::run made lately, kept by everything a plan depends
/// on, so that a repeated call (a model's every layer and token) skips the dispatcher.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "normlab/kernel.hpp"
#include "normlab/normlab.hpp"

namespace normlab::dispatch {

/// Everything a plan is made from, and everything validate() reads, and nothing else. Addresses
/// enter only through what the dispatcher reads of them: whether a tensor is given, its alignment
/// (to the largest one any kernel asks for) and which outputs lie over their inputs. The pointers
/// themselves do not, so a call on new tensors of the same layout finds the plan made for the last
/// ones. The scratch is left out: plans say how much they need, and run() checks what the call
/// holds.
class PlanKey {
 public:
  PlanKey() = default;  ///< no call's key
  /// The key of @p call on device @p device (its ordinal: kernels and scratch depend on the GPU).
  PlanKey(const NormCall& call, int device) {
    put(static_cast<std::int64_t>(call.op));
    put(static_cast<std::int64_t>(call.dtype));
    put(static_cast<std::int64_t>(call.weight_dtype));
    put(call.dy_dtype ? static_cast<std::int64_t>(*call.dy_dtype) : -1);
    put(call.residual_dtype ? static_cast<std::int64_t>(*call.residual_dtype) : -1);
    put(call.weight_plus_one);
    put(call.rows);
    put(call.cols);
    put(std::bit_cast<std::uint32_t>(call.eps));
    put(device);
    put_tensor(call.x, call.x_stride);
    put(call.x_group_rows);
    put(call.x_group_stride);
    put_tensor(call.residual, call.residual_stride);
    put_tensor(call.y, call.y_stride);
    put_tensor(call.residual_out, call.residual_out_stride);
    put_tensor(call.weight);
    put_tensor(call.bias);
    put_tensor(call.mean);
    put_tensor(call.rstd);
    put_tensor(call.dy, call.dy_stride);
    put_tensor(call.dresidual, call.dresidual_stride);
    put_tensor(call.dx, call.dx_stride);
    put_tensor(call.dweight);
    put_tensor(call.dbias);
    put_tensor(call.saved_mean);
    put_tensor(call.saved_rstd);
    // Outputs over their inputs (the dispatcher's in-place requirement).
    put(call.y != nullptr && call.y == call.x);
    put(call.residual_out != nullptr && call.residual_out == call.residual);
    put(call.dx != nullptr && call.dx == call.dy);
  }

  bool operator==(const PlanKey&) const = default;

  /// FNV-1a over the words.
  std::size_t hash() const {
    std::uint64_t h = 14695981039346656037ull;
    for (std::int64_t word : words_) {
      h ^= static_cast<std::uint64_t>(word);
      h *= 1099511628211ull;
    }
    return static_cast<std::size_t>(h);
  }

 private:
  // An address's offset within the largest alignment a kernel can ask for (kMostAlignment).
  static_assert(std::has_single_bit(static_cast<unsigned>(Requirements::kMostAlignment)));
  static constexpr std::uint64_t kAddressBits = Requirements::kMostAlignment - 1;
  // So the key also holds each address's alignment to its element, which validate() checks.
  static_assert(Requirements::kMostAlignment % sizeof(double) == 0);
  // The words the constructor puts: 10 scalars (op, the three dtypes and the residual stream's,
  // weight_plus_one, rows, cols, eps, device), 15 tensors of two words, x's two-level rows (group
  // rows and group stride) and 3 in-place flags.
  static constexpr std::size_t kWords = 10 + 15 * 2 + 2 + 3;

  // Bounds-checked: a word added to the constructor without growing kWords throws here (every
  // test that plans a call sees it) instead of writing past the array.
  void put(std::int64_t word) { words_.at(used_++) = word; }
  // A tensor: absent (-1) or its address's offset, and its row stride (0 for vectors).
  void put_tensor(const void* data, std::int64_t stride = 0) {
    put(data == nullptr
            ? -1
            : static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(data) & kAddressBits));
    put(stride);
  }

  std::array<std::int64_t, kWords> words_{};
  std::size_t used_ = 0;
};

/// A bounded, thread-safe map from PlanKey to the plan made for it, the least recently used
/// plan dropped first when full. Only plans are kept: a refused call throws from the planner
/// and is planned again (and refused again, with the same message) next time.
class PlanCache {
 public:
  using Planner = std::function<Plan(const NormCall&)>;

  explicit PlanCache(std::size_t capacity) : capacity_(capacity), id_(next_id()) {}

  /// The plan for @p call on @p device: the kept one, or @p planner's, then kept. A thread that
  /// repeats its last call's layout (every layer of a model, token after token) takes that plan
  /// from its own memo, without the lock, the hash or the map; a plan depends on its key alone,
  /// so it stays right even after the map has dropped it.
  std::shared_ptr<const Plan> find_or_plan(const NormCall& call, int device,
                                           const Planner& planner) {
    const PlanKey key(call, device);
    thread_local Memo memo;
    if (memo.cache == id_ && memo.key == key) return memo.plan;
    memo = {id_, key, find_or_plan(key, call, planner)};
    return memo.plan;
  }

  std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return order_.size();
  }

 private:
  struct Hash {
    std::size_t operator()(const PlanKey& key) const { return key.hash(); }
  };
  using Entry = std::pair<PlanKey, std::shared_ptr<const Plan>>;
  // A thread's last plan, and the cache it came from (by a number no other cache has had: two
  // caches at one address one after the other must not share it).
  struct Memo {
    std::uint64_t cache = 0;
    PlanKey key;
    std::shared_ptr<const Plan> plan;
  };

  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> ids{0};
    return ++ids;
  }

  std::shared_ptr<const Plan> find_or_plan(const PlanKey& key, const NormCall& call,
                                           const Planner& planner) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto found = index_.find(key); found != index_.end()) {
        order_.splice(order_.begin(), order_, found->second);  // now the most recent
        return found->second->second;
      }
    }
    // Planned outside the lock: a plan can take microseconds, and other threads' hits need not
    // wait for it. Two threads missing at once plan twice and keep one.
    auto made = std::make_shared<const Plan>(planner(call));
    const std::lock_guard lock(mutex_);
    if (const auto found = index_.find(key); found != index_.end()) return found->second->second;
    order_.emplace_front(key, made);
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return made;
  }

  std::size_t capacity_;
  std::uint64_t id_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  ///< the most recently used first
  std::unordered_map<PlanKey, std::list<Entry>::iterator, Hash> index_;
};

}  // namespace normlab::dispatch
