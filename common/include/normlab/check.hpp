// SPDX-License-Identifier: Apache-2.0
/// @file check.hpp
/// @brief Error checking: every CUDA call goes through NORMLAB_CHECK, every bad argument
/// through normlab::check_argument.
#pragma once

#include <cuda_runtime.h>

#include <concepts>
#include <stdexcept>
#include <string>

namespace normlab {

/// A failed CUDA call: what() holds the expression, file:line and CUDA's own message.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* expression, const char* file, int line);
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// Throws CudaError when @p status is not cudaSuccess.
inline void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  if (status != cudaSuccess) throw CudaError(status, expression, file, line);
}

/// Throws std::invalid_argument("<function>: argument '<argument>' <requirement>").
[[noreturn]] void fail_argument(const char* function, const std::string& argument,
                                const std::string& requirement);

/// Throws std::invalid_argument("<function>: argument '<argument>' <requirement>") unless @p ok.
inline void check_argument(bool ok, const char* function, const char* argument,
                           const char* requirement) {
  if (!ok) fail_argument(function, argument, requirement);
}
inline void check_argument(bool ok, const char* function, const char* argument,
                           const std::string& requirement) {
  if (!ok) fail_argument(function, argument, requirement);
}
/// The same, with the requirement written only when the check fails: @p requirement() returns
/// it. For the checks on every call's path (the dispatcher's, the launchers'), where formatting
/// numbers into a message that a passing check throws away cost more than the decision itself.
template <typename Requirement>
requires std::invocable<Requirement&>
inline void check_argument(bool ok, const char* function, const char* argument,
                           Requirement&& requirement) {
  if (!ok) fail_argument(function, argument, requirement());
}

}  // namespace normlab

/// Checks a CUDA runtime call; throws normlab::CudaError with file:line on failure.
#define NORMLAB_CHECK(expression) \
  ::normlab::check_cuda((expression), #expression, __FILE__, __LINE__)

/// Checks the launch that was just made (configuration errors surface here).
#define NORMLAB_CHECK_LAUNCH() NORMLAB_CHECK(cudaGetLastError())
