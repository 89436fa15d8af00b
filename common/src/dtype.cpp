// SPDX-License-Identifier: Apache-2.0
#include "normlab/dtype.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

namespace normlab {

std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return 4;
    case DType::f16:
    case DType::bf16:
      return 2;
  }
  throw std::invalid_argument("size_of: unknown dtype");
}

const char* name_of(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "fp32";
    case DType::f16:
      return "fp16";
    case DType::bf16:
      return "bf16";
  }
  return "unknown";
}

DType parse_dtype(std::string_view text, const char* argument) {
  if (text == "fp32" || text == "f32" || text == "float") return DType::f32;
  if (text == "fp16" || text == "f16" || text == "half") return DType::f16;
  if (text == "bf16") return DType::bf16;
  throw std::invalid_argument(std::string("argument '") + argument + "': unknown dtype '" +
                              std::string(text) + "' (expected fp32, fp16 or bf16)");
}

double load_as_double(DType dtype, const void* data, std::size_t index) {
  switch (dtype) {
    case DType::f32:
      return static_cast<const float*>(data)[index];
    case DType::f16:
      return __half2float(static_cast<const __half*>(data)[index]);
    case DType::bf16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(data)[index]);
  }
  throw std::invalid_argument("load_as_double: unknown dtype");
}

void store_from_double(DType dtype, void* data, std::size_t index, double value) {
  // double -> float is exact for every value fp16 and bf16 can round to from it, except for
  // double rounding at exact ties, which random data does not hit in practice.
  const float as_float = static_cast<float>(value);
  switch (dtype) {
    case DType::f32:
      static_cast<float*>(data)[index] = as_float;
      return;
    case DType::f16:
      static_cast<__half*>(data)[index] = __float2half_rn(as_float);
      return;
    case DType::bf16:
      static_cast<__nv_bfloat16*>(data)[index] = __float2bfloat16_rn(as_float);
      return;
  }
  throw std::invalid_argument("store_from_double: unknown dtype");
}

double round_to(DType dtype, double value) {
  unsigned char storage[4];
  store_from_double(dtype, storage, 0, value);
  return load_as_double(dtype, storage, 0);
}

Rounding rounding_for(DType dtype) {
  switch (dtype) {
    case DType::f16:
      return [](double v) { return round_to(DType::f16, v); };
    case DType::bf16:
      return [](double v) { return round_to(DType::bf16, v); };
    case DType::f32:
      break;
  }
  return [](double v) { return round_to(DType::f32, v); };
}

}  // namespace normlab
