// SPDX-License-Identifier: Apache-2.0
#include "normlab/arguments.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "normlab/block_size.hpp"
#include "normlab/check.hpp"

namespace normlab {

void validate_shape(const char* function, std::int64_t rows, std::int64_t cols) {
  check_argument(rows >= 0, function, "rows",
                 [&] { return "must be >= 0 (got " + std::to_string(rows) + ")"; });
  check_argument(cols >= 1, function, "cols",
                 [&] { return "must be >= 1 (got " + std::to_string(cols) + ")"; });
}

void validate_tensor(const char* function, const char* name, const void* data, std::int64_t rows,
                     std::int64_t cols, std::int64_t stride) {
  check_argument(rows == 0 || data != nullptr, function, name,
                 [&] { return "is null but rows = " + std::to_string(rows); });
  if (stride < cols) {
    fail_argument(
        function, std::string(name) + "_stride",
        "must be >= cols (got " + std::to_string(stride) + " < " + std::to_string(cols) + ")");
  }
}

void validate_row_groups(const char* function, const char* name, std::int64_t rows,
                         std::int64_t cols, std::int64_t stride, std::int64_t group_rows,
                         std::int64_t group_stride) {
  const std::string prefix(name);
  check_argument(group_rows >= 0, function, (prefix + "_group_rows").c_str(), [&] {
    return "must be >= 0 (got " + std::to_string(group_rows) + "; 0 or 1: one level)";
  });
  // A stride below cols is the tensor's own check's to name.
  if (group_rows <= 1 || rows == 0 || stride < cols) return;
  // The kernels keep the groups in 32 bits and find a row's group in 32 bits (row_offset and
  // Tensors in kernels/general.cuh).
  constexpr std::int64_t kMostRows = std::int64_t{1} << 32, kMostGroup = std::int64_t{1} << 31;
  check_argument(rows < kMostRows && group_rows < kMostGroup, function,
                 (prefix + "_group_rows").c_str(), [&] {
                   return "must be below 2^31, and rows below 2^32 (got " + std::to_string(rows) +
                          " rows in groups of " + std::to_string(group_rows) + ")";
                 });
  const std::string group_stride_name = prefix + "_group_stride";
  check_argument(group_stride < kMostGroup, function, group_stride_name.c_str(),
                 [&] { return "must be below 2^31 (got " + std::to_string(group_stride) + ")"; });
  check_argument(group_stride >= cols, function, group_stride_name.c_str(), [&] {
    return "must be >= cols (got " + std::to_string(group_stride) + " < " + std::to_string(cols) +
           ")";
  });
  // The furthest element: the last group's start, plus a whole group's rows (stride >= cols was
  // checked with the tensor), each product bounded before it is taken.
  constexpr std::int64_t kMost = std::numeric_limits<std::int64_t>::max();
  const std::int64_t last_group = (rows - 1) / group_rows;
  const std::int64_t within = std::min(rows, group_rows) - 1;
  const bool fits = within <= (kMost - cols) / stride &&
                    last_group <= (kMost - cols - within * stride) / group_stride;
  check_argument(fits, function, group_stride_name.c_str(), [&] {
    return "places the last row past 2^63 elements (" + std::to_string(rows) +
           " rows in groups of " + std::to_string(group_rows) + ", groups " +
           std::to_string(group_stride) + " apart)";
  });
}

void validate_vector(const char* function, const char* name, const void* data) {
  check_argument(data != nullptr, function, name, "is null");
}

void validate_eps(const char* function, float eps) {
  check_argument(!std::isnan(eps) && eps >= 0.0f, function, "eps",
                 [&] { return "must be >= 0 and not NaN (got " + std::to_string(eps) + ")"; });
}

void validate_alignment(const char* function, const char* name, const void* data,
                        std::int64_t stride, std::size_t element_bytes, std::size_t alignment) {
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  check_argument(address % alignment == 0, function, name,
                 [&] { return "must be " + std::to_string(alignment) + "-byte aligned"; });
  if ((static_cast<std::size_t>(stride) * element_bytes) % alignment != 0) {
    fail_argument(function, std::string(name) + "_stride",
                  "must keep every row " + std::to_string(alignment) + "-byte aligned (got " +
                      std::to_string(stride) + " elements)");
  }
}

void validate_rmsnorm_arguments(const char* function, const void* x, std::int64_t x_stride,
                                const void* weight, const void* y, std::int64_t y_stride,
                                std::int64_t rows, std::int64_t cols, float eps) {
  validate_shape(function, rows, cols);
  validate_tensor(function, "x", x, rows, cols, x_stride);
  validate_tensor(function, "y", y, rows, cols, y_stride);
  validate_vector(function, "weight", weight);
  validate_eps(function, eps);
}

void validate_one_block_per_row(const char* function, std::int64_t rows) {
  check_argument(rows <= kMaxRowsOneBlockPerRow, function, "rows",
                 "must be < 2^31 (one block per row)");
}

void validate_block_size(const char* function, int threads) {
  check_argument(std::find(kBlockSizes.begin(), kBlockSizes.end(), threads) != kBlockSizes.end(),
                 function, "threads", [&] {
                   std::string sizes;
                   for (int size : kBlockSizes)
                     sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
                   return "must be one of " + sizes + " (got " + std::to_string(threads) + ")";
                 });
}

void validate_no_weight_plus_one(const char* function, bool weight_plus_one) {
  check_argument(!weight_plus_one, function, "weight_plus_one",
                 "is not supported (scales by w; chapter 07 adds the 1 + w form)");
}

void validate_register_rows(const char* function, std::int64_t rows, std::int64_t cols,
                            std::int64_t max_cols) {
  validate_shape(function, rows, cols);
  check_argument(cols <= max_cols, function, "cols", [&] {
    return "must be <= " + std::to_string(max_cols) + " (the row is held in registers, got " +
           std::to_string(cols) + ")";
  });
  validate_one_block_per_row(function, rows);
}

void validate_in_place(const char* function, const void* input, std::int64_t input_stride,
                       const void* output, std::int64_t output_stride,
                       const char* output_stride_name) {
  check_argument(output != input || output_stride == input_stride, function, output_stride_name,
                 "must equal the input's stride when the output overwrites the input");
}

bool rows_are_16_byte_aligned(std::initializer_list<const void*> pointers,
                              std::initializer_list<std::int64_t> strides) {
  for (const void* p : pointers) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return false;
  }
  for (std::int64_t stride : strides) {
    if (stride % 4 != 0) return false;
  }
  return true;
}

}  // namespace normlab
