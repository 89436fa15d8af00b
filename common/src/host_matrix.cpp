#include "normlab/host_matrix.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "normlab/buffer.hpp"

namespace normlab {

HostMatrix::HostMatrix(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t stride)
    : dtype_(dtype), rows_(rows), cols_(cols), stride_(stride == 0 ? cols : stride) {
  if (rows < 0 || cols < 0 || stride_ < cols) {
    throw std::invalid_argument("HostMatrix: bad shape " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " stride " + std::to_string(stride_));
  }
  bytes_.assign(static_cast<std::size_t>(rows_ * stride_) * size_of(dtype_), kPoisonByte);
}

double HostMatrix::at(std::int64_t row, std::int64_t col) const {
  return load_as_double(dtype_, bytes_.data(), static_cast<std::size_t>(row * stride_ + col));
}

void HostMatrix::set(std::int64_t row, std::int64_t col, double value) {
  store_from_double(dtype_, bytes_.data(), static_cast<std::size_t>(row * stride_ + col), value);
}

bool HostMatrix::is_poison(std::int64_t row, std::int64_t col) const {
  const std::size_t width = size_of(dtype_);
  const unsigned char* element =
      bytes_.data() + static_cast<std::size_t>(row * stride_ + col) * width;
  for (std::size_t i = 0; i < width; ++i) {
    if (element[i] != kPoisonByte) return false;
  }
  return true;
}

std::vector<double> HostMatrix::to_dense() const {
  std::vector<double> dense(static_cast<std::size_t>(rows_ * cols_));
  for (std::int64_t r = 0; r < rows_; ++r) {
    for (std::int64_t c = 0; c < cols_; ++c)
      dense[static_cast<std::size_t>(r * cols_ + c)] = at(r, c);
  }
  return dense;
}

}  // namespace normlab
