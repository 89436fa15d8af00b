// SPDX-License-Identifier: Apache-2.0
/// @file host_matrix.hpp
/// @brief A row-major matrix on the host in any normlab dtype, with a row stride >= cols.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "normlab/dtype.hpp"

namespace normlab {

/// An allocator whose resize() leaves bytes unset, so that a large buffer can be filled in
/// parallel (a std::vector would first zero it on one core).
struct UnsetBytes : std::allocator<unsigned char> {
  template <typename U>
  struct rebind {
    using other = UnsetBytes;
  };
  void construct(unsigned char*) noexcept {}  // value-initialisation: leave the byte unset
  template <typename... Args>
  void construct(unsigned char* p, Args&&... args) {
    ::new (static_cast<void*>(p)) unsigned char(std::forward<Args>(args)...);
  }
};

/// Host copy of a tensor as the device sees it: @p rows rows of @p cols elements, each row
/// @p stride elements apart. The elements between cols and stride are the row's guard band.
/// With two-level rows (x of a head view) the rows come in groups of @p group_rows rows, the
/// groups @p group_stride elements apart; the elements between a group's last row and the next
/// group are the group's guard band.
class HostMatrix {
 public:
  HostMatrix() = default;
  /// Allocates rows x stride elements (stride 0 means cols), or with groups (group_rows > 1) a
  /// group_stride for each group begun, every byte poisoned (on every core). group_stride must
  /// hold a group's rows: at least group_rows x stride.
  HostMatrix(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t stride = 0,
             std::int64_t group_rows = 0, std::int64_t group_stride = 0);

  DType dtype() const noexcept { return dtype_; }
  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t cols() const noexcept { return cols_; }
  std::int64_t stride() const noexcept { return stride_; }
  std::int64_t group_rows() const noexcept { return group_rows_; }  ///< 0: one level
  std::int64_t group_stride() const noexcept { return group_stride_; }
  void* data() noexcept { return bytes_.data(); }
  const void* data() const noexcept { return bytes_.data(); }
  std::size_t bytes() const noexcept { return bytes_.size(); }

  double at(std::int64_t row, std::int64_t col) const;
  void set(std::int64_t row, std::int64_t col, double value);  ///< rounds to dtype()
  /// True when element (row, col) still holds the poison pattern (nothing wrote it).
  bool is_poison(std::int64_t row, std::int64_t col) const;
  /// The rows x cols elements as doubles, densely packed (stride dropped).
  std::vector<double> to_dense() const;
  /// Rows [@p first_row, @p first_row + @p rows) as doubles, densely packed.
  std::vector<double> to_dense(std::int64_t first_row, std::int64_t rows) const;

 private:
  // Element index of (row, col).
  std::size_t index(std::int64_t row, std::int64_t col) const;

  DType dtype_ = DType::f32;
  std::int64_t rows_ = 0, cols_ = 0, stride_ = 0, group_rows_ = 0, group_stride_ = 0;
  std::vector<unsigned char, UnsetBytes> bytes_;
};

}  // namespace normlab
