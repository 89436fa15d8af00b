// SPDX-License-Identifier: Apache-2.0
#include "normlab/check.hpp"

#include <string>

namespace normlab {

namespace {
std::string cuda_message(cudaError_t code, const char* expression, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + expression +
         " failed: " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
}
}  // namespace

CudaError::CudaError(cudaError_t code, const char* expression, const char* file, int line)
    : std::runtime_error(cuda_message(code, expression, file, line)), code_(code) {}

void fail_argument(const char* function, const std::string& argument,
                   const std::string& requirement) {
  throw std::invalid_argument(std::string(function) + ": argument '" + argument + "' " +
                              requirement);
}

}  // namespace normlab
