// SPDX-License-Identifier: Apache-2.0
/// @file dtype.hpp
/// @brief Element types of the tensors normlab kernels read and write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace normlab {

/// Storage type of a tensor. Statistics are always accumulated in fp32 on the device.
enum class DType { f32, f16, bf16 };

/// Bytes per element.
std::size_t size_of(DType dtype);
/// "fp32", "fp16" or "bf16".
const char* name_of(DType dtype);
/// Parses "fp32|f32|float", "fp16|f16|half", "bf16"; throws std::invalid_argument naming
/// @p argument otherwise.
DType parse_dtype(std::string_view text, const char* argument = "dtype");

/// Reads element @p index of an array of @p dtype as double.
double load_as_double(DType dtype, const void* data, std::size_t index);
/// Rounds @p value to @p dtype (nearest even) and stores it at element @p index.
void store_from_double(DType dtype, void* data, std::size_t index, double value);
/// Rounds @p value to @p dtype and back: what a tensor of that type can hold.
double round_to(DType dtype, double value);

/// A function that rounds a double as round_to does for one dtype (the references take one to
/// round an intermediate, such as the residual h, to what the kernel stores).
using Rounding = double (*)(double);
/// round_to for @p dtype, as a Rounding.
Rounding rounding_for(DType dtype);

}  // namespace normlab
