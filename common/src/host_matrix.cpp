// SPDX-License-Identifier: Apache-2.0
#include "normlab/host_matrix.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "normlab/buffer.hpp"
#include "normlab/parallel.hpp"

namespace normlab {

HostMatrix::HostMatrix(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t stride,
                       std::int64_t group_rows, std::int64_t group_stride)
    : dtype_(dtype),
      rows_(rows),
      cols_(cols),
      stride_(stride == 0 ? cols : stride),
      group_rows_(group_rows > 1 ? group_rows : 0),
      group_stride_(group_rows > 1 ? group_stride : 0) {
  if (rows < 0 || cols < 0 || stride_ < cols || group_rows < 0 ||
      (group_rows_ > 1 && group_stride_ < group_rows_ * stride_)) {
    throw std::invalid_argument("HostMatrix: bad shape " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " stride " + std::to_string(stride_) +
                                " groups of " + std::to_string(group_rows) + " rows " +
                                std::to_string(group_stride) + " apart");
  }
  const std::int64_t elements =
      group_rows_ > 1 ? (rows_ + group_rows_ - 1) / group_rows_ * group_stride_ : rows_ * stride_;
  bytes_.resize(static_cast<std::size_t>(elements) * size_of(dtype_));
  // Poisoned in 64 MiB pieces on every core: a 4 GB tensor's first touch is seconds on one.
  constexpr std::size_t kPiece = std::size_t{64} << 20;
  const auto pieces = static_cast<std::int64_t>((bytes_.size() + kPiece - 1) / kPiece);
  parallel_for(pieces, [&](std::int64_t piece) {
    const std::size_t begin = static_cast<std::size_t>(piece) * kPiece;
    std::memset(bytes_.data() + begin, kPoisonByte, std::min(kPiece, bytes_.size() - begin));
  });
}

std::size_t HostMatrix::index(std::int64_t row, std::int64_t col) const {
  if (group_rows_ > 1) {
    return static_cast<std::size_t>(row / group_rows_ * group_stride_ +
                                    row % group_rows_ * stride_ + col);
  }
  return static_cast<std::size_t>(row * stride_ + col);
}

double HostMatrix::at(std::int64_t row, std::int64_t col) const {
  return load_as_double(dtype_, bytes_.data(), index(row, col));
}

void HostMatrix::set(std::int64_t row, std::int64_t col, double value) {
  store_from_double(dtype_, bytes_.data(), index(row, col), value);
}

bool HostMatrix::is_poison(std::int64_t row, std::int64_t col) const {
  const std::size_t width = size_of(dtype_);
  const unsigned char* element = bytes_.data() + index(row, col) * width;
  for (std::size_t i = 0; i < width; ++i) {
    if (element[i] != kPoisonByte) return false;
  }
  return true;
}

std::vector<double> HostMatrix::to_dense() const {
  return to_dense(0, rows_);
}

std::vector<double> HostMatrix::to_dense(std::int64_t first_row, std::int64_t rows) const {
  if (first_row < 0 || rows < 0 || first_row + rows > rows_) {
    throw std::invalid_argument("HostMatrix::to_dense: rows " + std::to_string(first_row) + " to " +
                                std::to_string(first_row + rows) + " of " + std::to_string(rows_));
  }
  std::vector<double> dense(static_cast<std::size_t>(rows * cols_));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols_; ++c)
      dense[static_cast<std::size_t>(r * cols_ + c)] = at(first_row + r, c);
  }
  return dense;
}

}  // namespace normlab
