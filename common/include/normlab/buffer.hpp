// SPDX-License-Identifier: Apache-2.0
/// @file buffer.hpp
/// @brief A move-only owner of device memory, with a poison fill, and a host
/// matrix placed on the device inside a poisoned allocation.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "normlab/check.hpp"
#include "normlab/host_matrix.hpp"

namespace normlab {

// [poison]
/// The byte every poisoned buffer is filled with. 0xFF makes fp32, fp16 and bf16 elements NaN
/// with a bit pattern no arithmetic produces, so an unwritten element is recognisable.
inline constexpr unsigned char kPoisonByte = 0xFF;
// [poison]

/// Device memory for @p count elements of T. Move-only; freed on destruction.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) NORMLAB_CHECK(cudaMalloc(&data_, bytes()));
  }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Fills every byte with kPoisonByte.
  void poison(cudaStream_t stream = nullptr) {
    if (count_ > 0) NORMLAB_CHECK(cudaMemsetAsync(data_, kPoisonByte, bytes(), stream));
  }
  /// Copies @p bytes() bytes from host memory @p host (synchronous).
  void upload(const void* host) {
    if (count_ > 0) NORMLAB_CHECK(cudaMemcpy(data_, host, bytes(), cudaMemcpyHostToDevice));
  }
  /// Copies @p bytes() bytes to host memory @p host (synchronous).
  void download(void* host) const {
    if (count_ > 0) NORMLAB_CHECK(cudaMemcpy(host, data_, bytes(), cudaMemcpyDeviceToHost));
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// A copy of @p host in a new DeviceBuffer on the current device (synchronous).
template <typename T>
DeviceBuffer<T> on_device(const std::vector<T>& host) {
  DeviceBuffer<T> buffer(host.size());
  buffer.upload(host.data());
  return buffer;
}

/// A HostMatrix copied to the device, its base shifted by @p misalign elements inside a
/// poisoned allocation, so that a kernel's bad read or write lands on poison, not on a
/// neighbour.
class PlacedMatrix {
 public:
  PlacedMatrix() = default;
  PlacedMatrix(const HostMatrix& host, std::int64_t misalign)
      : PlacedMatrix(host.bytes(), static_cast<std::size_t>(misalign) * size_of(host.dtype())) {
    upload(host);
  }
  /// Room for a matrix shaped like @p like, all poison (a result the kernel has to write).
  static PlacedMatrix poisoned_like(const HostMatrix& like, std::int64_t misalign) {
    return PlacedMatrix(like.bytes(), static_cast<std::size_t>(misalign) * size_of(like.dtype()));
  }
  void* data() const { return buffer_.data() + offset_; }
  /// Poisons the whole allocation: the matrix, its guard bands and the misalignment before it.
  void poison() { buffer_.poison(); }
  /// Copies @p host (of the shape this was made from) to the device (synchronous).
  void upload(const HostMatrix& host) {
    NORMLAB_CHECK(cudaMemcpy(data(), host.data(), host.bytes(), cudaMemcpyHostToDevice));
  }
  /// Copies the device data into @p host (synchronous).
  void download(HostMatrix& host) const {
    NORMLAB_CHECK(cudaMemcpy(host.data(), data(), host.bytes(), cudaMemcpyDeviceToHost));
  }

 private:
  PlacedMatrix(std::size_t bytes, std::size_t offset) : offset_(offset), buffer_(bytes + offset) {
    buffer_.poison();
  }

  std::size_t offset_ = 0;
  DeviceBuffer<unsigned char> buffer_;
};

}  // namespace normlab
