// SPDX-License-Identifier: Apache-2.0
// Chapter 11's GEMMs through cuBLASLt (lt_gemm.hpp).
#include "lt_gemm.hpp"

#include <stdexcept>
#include <string>

#include "ch11.cuh"
#include "normlab/check.hpp"

namespace normlab::ch11 {

namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;  // what cuBLASLt may use for split-K

// A row-major or column-major fp16 matrix layout of rows x cols with leading dimension ld.
cublasLtMatrixLayout_t layout(std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              cublasLtOrder_t order) {
  cublasLtMatrixLayout_t result = nullptr;
  NORMLAB_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(
      &result, CUDA_R_16F, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld));
  NORMLAB_CHECK_CUBLAS(cublasLtMatrixLayoutSetAttribute(result, CUBLASLT_MATRIX_LAYOUT_ORDER,
                                                        &order, sizeof(order)));
  return result;
}

}  // namespace

void check_cublas(cublasStatus_t status, const char* expression, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(expression) + " at " + file + ":" + std::to_string(line) +
                           ": " + cublasLtGetStatusName(status));
}

const char* name_of(RowScale mechanism) {
  switch (mechanism) {
    case RowScale::epilogue_row_major:
      return "epilogue (alpha vector, row-major A, B, D)";
    case RowScale::epilogue_transposed:
      return "epilogue (alpha vector, row-major D, transposed A and B)";
    default:
      return "scale kernel (no per-row alpha in cuBLASLt for this call)";
  }
}

// Descriptors of one GEMM and the heuristic's first algorithm for it (A is w in the plain
// column-major call, which multiplies w^T · x^T, and x in the row-scaled one).
struct LtGemm::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  RowScale mechanism = RowScale::scale_kernel;
  std::string why;  // what cuBLASLt answered to the epilogue forms, when it took neither

  void release() {
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (desc) cublasLtMatmulDescDestroy(desc);
    desc = nullptr;
    a = b = d = nullptr;
  }
  ~Plan() { release(); }

  // The heuristic's first algorithm for the descriptors; its status, or NOT_SUPPORTED when it
  // returns none.
  cublasStatus_t find_algorithm(cublasLtHandle_t handle) {
    cublasLtMatmulPreference_t preference = nullptr;
    NORMLAB_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
    const std::size_t bytes = kWorkspaceBytes;
    NORMLAB_CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof(bytes)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, d, d, preference, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (found == 0) return CUBLAS_STATUS_NOT_SUPPORTED;
    algo = result.algo;
    return CUBLAS_STATUS_SUCCESS;
  }
};

LtGemm::LtGemm() {
  NORMLAB_CHECK_CUBLAS(cublasLtCreate(&handle_));
  NORMLAB_CHECK(cudaMalloc(&workspace_, kWorkspaceBytes));
}

LtGemm::~LtGemm() {
  plans_.clear();
  cudaFree(workspace_);
  cublasLtDestroy(handle_);
}

// [plans]
LtGemm::Plan& LtGemm::plan(bool row_scaled, std::int64_t rows, std::int64_t k_cols,
                           std::int64_t n_cols) {
  const Key key{row_scaled, rows, k_cols, n_cols};
  if (auto found = plans_.find(key); found != plans_.end()) return *found->second;
  auto p = std::make_unique<Plan>();
  auto describe = [&](cublasLtPointerMode_t mode, cublasOperation_t transpose) {
    NORMLAB_CHECK_CUBLAS(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    NORMLAB_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_POINTER_MODE,
                                                        &mode, sizeof(mode)));
    for (auto attribute : {CUBLASLT_MATMUL_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSB}) {
      NORMLAB_CHECK_CUBLAS(
          cublasLtMatmulDescSetAttribute(p->desc, attribute, &transpose, sizeof(transpose)));
    }
  };
  if (row_scaled) {
    // Tokens are D's rows (its M): y = x · w with D row-major; the alpha vector scales them.
    const auto mode = CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST;
    describe(mode, CUBLAS_OP_N);
    p->a = layout(rows, k_cols, k_cols, CUBLASLT_ORDER_ROW);
    p->b = layout(k_cols, n_cols, n_cols, CUBLASLT_ORDER_ROW);
    p->d = layout(rows, n_cols, n_cols, CUBLASLT_ORDER_ROW);
    cublasStatus_t status = p->find_algorithm(handle_);
    p->mechanism = RowScale::epilogue_row_major;
    if (status != CUBLAS_STATUS_SUCCESS) {
      p->why = std::string("row-major A, B, D: ") + cublasLtGetStatusName(status);
      p->release();
      // x row-major is x^T column-major (k_cols x rows); w row-major is w^T column-major.
      describe(mode, CUBLAS_OP_T);
      p->a = layout(k_cols, rows, k_cols, CUBLASLT_ORDER_COL);
      p->b = layout(n_cols, k_cols, n_cols, CUBLASLT_ORDER_COL);
      p->d = layout(rows, n_cols, n_cols, CUBLASLT_ORDER_ROW);
      status = p->find_algorithm(handle_);
      p->mechanism = RowScale::epilogue_transposed;
    }
    if (status != CUBLAS_STATUS_SUCCESS) {
      p->why += std::string("; transposed A, B with row-major D: ") + cublasLtGetStatusName(status);
      p->release();
      p->mechanism = RowScale::scale_kernel;
    }
  }
  if (!row_scaled) {
    // Column-major, as every framework calls it: y^T (n_cols x rows) = w^T · x^T.
    describe(CUBLASLT_POINTER_MODE_HOST, CUBLAS_OP_N);
    p->a = layout(n_cols, k_cols, n_cols, CUBLASLT_ORDER_COL);
    p->b = layout(k_cols, rows, k_cols, CUBLASLT_ORDER_COL);
    p->d = layout(n_cols, rows, n_cols, CUBLASLT_ORDER_COL);
    NORMLAB_CHECK_CUBLAS(p->find_algorithm(handle_));
  }
  return *plans_.emplace(key, std::move(p)).first->second;
}
// [plans]

void LtGemm::plain(const __half* x, const __half* w, __half* y, std::int64_t rows,
                   std::int64_t k_cols, std::int64_t n_cols, cudaStream_t stream) {
  if (rows == 0) return;
  Plan& p = plan(false, rows, k_cols, n_cols);
  const float alpha = 1.0f, beta = 0.0f;
  NORMLAB_CHECK_CUBLAS(cublasLtMatmul(handle_, p.desc, &alpha, w, p.a, x, p.b, &beta, y, p.d, y,
                                      p.d, &p.algo, workspace_, kWorkspaceBytes, stream));
}

void LtGemm::row_scaled(const __half* x, const __half* w, const float* row_scale, __half* y,
                        std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols,
                        cudaStream_t stream) {
  if (rows == 0) return;
  Plan& p = plan(true, rows, k_cols, n_cols);
  if (p.mechanism == RowScale::scale_kernel) {
    plain(x, w, y, rows, k_cols, n_cols, stream);
    scale_rows(y, row_scale, rows, n_cols, stream);
    return;
  }
  const float beta = 0.0f;
  NORMLAB_CHECK_CUBLAS(cublasLtMatmul(handle_, p.desc, row_scale, x, p.a, w, p.b, &beta, y, p.d, y,
                                      p.d, &p.algo, workspace_, kWorkspaceBytes, stream));
}

void LtGemm::prepare(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols) {
  plan(false, rows, k_cols, n_cols);
  plan(true, rows, k_cols, n_cols);
}

RowScale LtGemm::row_scale_mechanism(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols,
                                     std::string* why) {
  const Plan& p = plan(true, rows, k_cols, n_cols);
  if (why != nullptr) *why = p.why;
  return p.mechanism;
}

}  // namespace normlab::ch11
