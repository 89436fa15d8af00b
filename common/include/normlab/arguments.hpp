// SPDX-License-Identifier: Apache-2.0
/// @file arguments.hpp
/// @brief Argument checks every host launcher makes before it launches anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace normlab {

/// rows >= 0 and cols >= 1.
void validate_shape(const char* function, std::int64_t rows, std::int64_t cols);
/// A rows x cols tensor: non-null when rows > 0, and stride >= cols.
void validate_tensor(const char* function, const char* name, const void* data, std::int64_t rows,
                     std::int64_t cols, std::int64_t stride);
/// Two-level rows of a rows x cols tensor (x of a head view: groups of @p group_rows rows
/// @p stride apart, the groups @p group_stride apart; row_offset in kernels/general.cuh):
/// group_rows >= 0, and with two levels (group_rows > 1) group_rows and group_stride below 2^31
/// and fewer than 2^32 rows (the kernels keep them in 32 bits), group_stride >= cols and the
/// furthest
/// element's offset within 64 bits (stride >= cols is validate_tensor's). Errors name
/// @p name + "_group_rows" or "_group_stride".
void validate_row_groups(const char* function, const char* name, std::int64_t rows,
                         std::int64_t cols, std::int64_t stride, std::int64_t group_rows,
                         std::int64_t group_stride);
/// A vector of cols parameters: non-null (call only when the parameter is required).
void validate_vector(const char* function, const char* name, const void* data);
/// eps >= 0 and not NaN.
void validate_eps(const char* function, float eps);
/// @p data is a multiple of @p alignment bytes and @p stride * @p element_bytes is too.
void validate_alignment(const char* function, const char* name, const void* data,
                        std::int64_t stride, std::size_t element_bytes, std::size_t alignment);
/// The checks of every fp32 RMSNorm launcher: the shape, x and y (non-null when rows > 0,
/// stride >= cols), the weight (non-null) and eps.
void validate_rmsnorm_arguments(const char* function, const void* x, std::int64_t x_stride,
                                const void* weight, const void* y, std::int64_t y_stride,
                                std::int64_t rows, std::int64_t cols, float eps);
/// The most rows a launch with one block per row takes (gridDim.x <= 2^31 - 1).
inline constexpr std::int64_t kMaxRowsOneBlockPerRow = 0x7fffffff;
/// rows fits the grid of a launch with one block per row (rows <= kMaxRowsOneBlockPerRow).
void validate_one_block_per_row(const char* function, std::int64_t rows);
/// @p threads is one of kBlockSizes (block_size.hpp).
void validate_block_size(const char* function, int threads);
/// Refuses a (1 + w) scale, for a call reaching a kernel that scales by w: the safety net
/// behind Capabilities::weight_plus_one for callers that skip KernelEntry::refusal.
void validate_no_weight_plus_one(const char* function, bool weight_plus_one);
/// The shape checks of a launcher that holds a row in registers: rows >= 0,
/// 1 <= cols <= @p max_cols, and rows fits a grid of one block per row.
void validate_register_rows(const char* function, std::int64_t rows, std::int64_t cols,
                            std::int64_t max_cols);
/// An output over an input is allowed only as the same rows: same base, same stride.
void validate_in_place(const char* function, const void* input, std::int64_t input_stride,
                       const void* output, std::int64_t output_stride,
                       const char* output_stride_name);
/// True when every row of the fp32 tensors starts 16-byte aligned: each non-null base pointer
/// is, and each row stride is a multiple of 4 elements.
bool rows_are_16_byte_aligned(std::initializer_list<const void*> pointers,
                              std::initializer_list<std::int64_t> strides);

}  // namespace normlab
