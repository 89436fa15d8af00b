// SPDX-License-Identifier: Apache-2.0
/// @file lt_gemm.hpp
/// @brief Chapter 11's GEMMs through cuBLASLt: the plain y = x · w, and y = diag(s) · (x · w)
/// with the per-row scale s in the epilogue where cuBLASLt offers it for the call.
#pragma once

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

namespace normlab::ch11 {

/// Throws std::runtime_error with the expression, file:line and cuBLAS's status name unless
/// @p status is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t status, const char* expression, const char* file, int line);

/// Checks a cuBLAS or cuBLASLt call.
#define NORMLAB_CHECK_CUBLAS(expression) \
  ::normlab::ch11::check_cublas((expression), #expression, __FILE__, __LINE__)

// [row_scale]
/// How y = diag(s) · (x · w) applies s. cuBLASLt's pointer mode
/// CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST reads alpha as a device vector of one
/// value per row of D (its M dimension). normlab's y is row-major, tokens x N; the usual
/// column-major call computes y^T = w^T · x^T, whose rows are the N outputs, so an alpha vector
/// there would scale columns. The tokens become D's rows when D is declared CUBLASLT_ORDER_ROW:
/// first with every matrix row-major, then with x and w read transposed from column-major.
/// Where cuBLASLt offers neither for the call, the GEMM runs plain and a kernel scales the rows.
enum class RowScale {
  epilogue_row_major,   ///< alpha vector, A, B, D all CUBLASLT_ORDER_ROW
  epilogue_transposed,  ///< alpha vector, D CUBLASLT_ORDER_ROW, A and B transposed column-major
  scale_kernel,         ///< plain GEMM, then ch11::scale_rows
};
// [row_scale]

/// "epilogue (alpha vector, row-major)", ...
const char* name_of(RowScale mechanism);

/// A cuBLASLt handle, its workspace and the plans (descriptors and the heuristic's first
/// algorithm) of every shape it has run. Planning queries the heuristic on the host, so plan
/// (or run once) before capturing a CUDA graph.
class LtGemm {
 public:
  LtGemm();
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  /// y = x · w: x rows x k_cols, w k_cols x n_cols, y rows x n_cols, row-major fp16, fp32
  /// accumulation; cuBLASLt's default heuristic.
  void plain(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t k_cols,
             std::int64_t n_cols, cudaStream_t stream);
  /// y = diag(row_scale) · (x · w), row_scale one fp32 a row, on the device.
  void row_scaled(const __half* x, const __half* w, const float* row_scale, __half* y,
                  std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols, cudaStream_t stream);
  /// Plans both GEMMs of this shape now (cuBLASLt's heuristic runs on the host).
  void prepare(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols);
  /// How row_scaled applies the scale to this shape (planning it when new), and, when it fell
  /// back to the scale kernel, what cuBLASLt answered.
  RowScale row_scale_mechanism(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols,
                               std::string* why = nullptr);

 private:
  struct Plan;
  using Key = std::tuple<bool, std::int64_t, std::int64_t, std::int64_t>;
  Plan& plan(bool row_scaled, std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols);

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

}  // namespace normlab::ch11
