// Chapter 07: real tensors.
//
// Chapters 04 to 06 normalised neat fp32 blocks: 16-byte aligned rows, a width that splits
// into whole float4s, one stride for everything. Models hand a norm bf16 or fp16 activations
// with fp32 weights, rows of 5000 elements, views with their own row strides, slices whose
// base is not 16-byte aligned, tensors of more than 2^31 elements, and ask for the result in
// place. This chapter keeps the fast path (16-byte vectors, the row in registers, statistics
// in fp32) and makes each of those cases correct:
//   - a vector is always 16 bytes, 4 floats or 8 halves, converted to fp32 as it is loaded;
//   - a row is cut into chunks on the 16-byte boundaries of memory, not of the row, so a
//     misaligned row starts with a partial chunk moved element by element and the rest moves
//     as whole vectors; a tensor whose row is misaligned unlike x's moves element by element;
//   - every offset is int64;
//   - every load of a row happens before the block's reduction and every store after it, so
//     y may be x and the new residual may overwrite the old one.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ch07.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::ch07 {

namespace {

constexpr int kVectorBytes = 16;
constexpr int kWarp = 32;

// The largest block for a kernel whose threads keep kVectors vectors of the row: an SM's 65536
// registers must hold one block, so 512 threads may use 128 registers each and 384 threads 170.
// The 1 in __launch_bounds__(threads, 1) lets the compiler use them all rather than spill.
template <int kVectors>
constexpr int kMostThreads = kVectors <= 4 ? 512 : 384;
constexpr int kStreamingThreads = 512;

// [convert]
__device__ float to_float(float v) {
  return v;
}
__device__ float to_float(__half v) {
  return __half2float(v);
}
__device__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

// Rounds to nearest even: the one place where a result leaves fp32.
template <typename T>
__device__ T from_float(float v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return v;
  }
}
// [convert]

// [vector]
// The elements of T that fill one 16-byte vector: 4 floats or 8 halves. Its alignment lets the
// compiler move it with a single 128-bit load or store.
template <typename T>
struct alignas(kVectorBytes) Vector {
  static constexpr int kWidth = kVectorBytes / sizeof(T);
  T element[kWidth];
};

// Elements [first, first + width) of a row of cols elements; elements outside the row read
// as zero. A chunk wholly inside the row and on a 16-byte boundary moves as one vector, any
// other chunk element by element. kAligned promises that every chunk is either a whole aligned
// vector inside the row or wholly past its end, and so drops the element-by-element code.
template <bool kAligned, typename T>
__device__ Vector<T> load_chunk(const T* row, std::int64_t first, std::int64_t cols, bool aligned) {
  constexpr int kWidth = Vector<T>::kWidth;
  if (kAligned ? first < cols : aligned && first >= 0 && first + kWidth <= cols) {
    return *reinterpret_cast<const Vector<T>*>(row + first);
  }
  Vector<T> v;
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {
    const std::int64_t col = first + j;
    v.element[j] = !kAligned && col >= 0 && col < cols ? row[col] : from_float<T>(0.0f);
  }
  return v;
}

// Stores the elements of v that lie inside the row: one vector, or element by element.
template <bool kAligned, typename T>
__device__ void store_chunk(T* row, std::int64_t first, std::int64_t cols, bool aligned,
                            const Vector<T>& v) {
  constexpr int kWidth = Vector<T>::kWidth;
  if (kAligned ? first < cols : aligned && first >= 0 && first + kWidth <= cols) {
    *reinterpret_cast<Vector<T>*>(row + first) = v;
    return;
  }
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {
    const std::int64_t col = first + j;
    if (!kAligned && col >= 0 && col < cols) row[col] = v.element[j];
  }
}

// kWidth weights or biases from element first on, as fp32: one vector when P is the
// activation type, two when fp32 parameters go with a 16-bit tensor.
template <bool kAligned, int kWidth, typename P>
__device__ void load_parameters(const P* parameters, std::int64_t first, std::int64_t cols,
                                bool aligned, float (&out)[kWidth]) {
  constexpr int kPerVector = Vector<P>::kWidth;
#pragma unroll
  for (int i = 0; i < kWidth; i += kPerVector) {
    const Vector<P> v = load_chunk<kAligned>(parameters, first + i, cols, aligned);
#pragma unroll
    for (int j = 0; j < kPerVector; ++j)
      out[i + j] = to_float(v.element[j]);
  }
}
// [vector]

// [peel]
// Whether the chunks of a row start on 16-byte boundaries. Chunk c starts at element
// c * width - lead, and width * sizeof(T) is a multiple of 16, so it holds for every chunk
// when it holds for element -lead.
template <typename T>
__device__ bool chunks_aligned(const T* row, int lead) {
  return (reinterpret_cast<std::uintptr_t>(row) - lead * sizeof(T)) % kVectorBytes == 0;
}

// The tensors of one call. T: x, residual, y, residual_out; P: weight and bias (T or float).
template <typename T, typename P>
struct Tensors {
  const T* x;
  std::int64_t x_stride;
  const T* residual;
  std::int64_t residual_stride;
  T* y;
  std::int64_t y_stride;
  T* residual_out;
  std::int64_t residual_out_stride;
  const P* weight;  // null: scale 1
  const P* bias;    // null: shift 0
  bool weight_plus_one;
  float* mean;  // null: not written
  float* rstd;  // null: not written
  std::int64_t rows;
  std::int64_t cols;
  float eps;
};

// One row of every tensor, cut into chunks on the 16-byte grid of x's row: chunk c holds
// elements [c * width - lead, (c + 1) * width - lead).
template <typename T, typename P, bool kAligned>
struct Row {
  const T* x;
  const T* residual;
  T* y;
  T* residual_out;
  int lead;             // elements of the first chunk that lie before the row
  std::int64_t chunks;  // chunks holding at least one element of the row
  bool residual_aligned, y_aligned, residual_out_aligned, weight_aligned, bias_aligned;
};

template <bool kAligned, typename T, typename P>
__device__ Row<T, P, kAligned> row_of(const Tensors<T, P>& t, std::int64_t r) {
  constexpr int kWidth = Vector<T>::kWidth;
  Row<T, P, kAligned> row{};
  row.x = t.x + r * t.x_stride;
  row.y = t.y + r * t.y_stride;
  if (t.residual != nullptr) {
    row.residual = t.residual + r * t.residual_stride;
    row.residual_out = t.residual_out + r * t.residual_out_stride;
  }
  if (!kAligned) {
    row.lead = static_cast<int>(reinterpret_cast<std::uintptr_t>(row.x) % kVectorBytes / sizeof(T));
  }
  row.chunks = (row.lead + t.cols + kWidth - 1) / kWidth;
  row.y_aligned = kAligned || chunks_aligned(row.y, row.lead);
  row.weight_aligned = kAligned || chunks_aligned(t.weight, row.lead);
  row.bias_aligned = kAligned || chunks_aligned(t.bias, row.lead);
  row.residual_aligned = kAligned || chunks_aligned(row.residual, row.lead);
  row.residual_out_aligned = kAligned || chunks_aligned(row.residual_out, row.lead);
  return row;
}
// [peel]

__device__ float warp_sum(float value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

// The sum of value over the block, returned to every thread (blocks are whole warps).
__device__ float block_sum(float value) {
  __shared__ float partials[kWarp];
  value = warp_sum(value);
  const int warp = threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (lane == 0) partials[warp] = value;
  __syncthreads();
  value = lane < static_cast<int>(blockDim.x) / kWarp ? partials[lane] : 0.0f;
  __syncthreads();  // every warp has read partials before the next call overwrites them
  return warp_sum(value);
}

struct Statistics {
  float mean;  // 0 for RMSNorm
  float rstd;
};

// [rounding]
// h = x + r in fp32, rounded to T and stored as the new residual. The norm is taken of this
// rounded h, the value the next layer will read back, not of the fp32 sum.
template <typename T, typename P, bool kAligned>
__device__ Vector<T> add_residual(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                  std::int64_t first, const Vector<T>& x) {
  const Vector<T> r = load_chunk<kAligned>(row.residual, first, t.cols, row.residual_aligned);
  Vector<T> h;
#pragma unroll
  for (int j = 0; j < Vector<T>::kWidth; ++j) {
    h.element[j] = from_float<T>(to_float(x.element[j]) + to_float(r.element[j]));
  }
  store_chunk<kAligned>(row.residual_out, first, t.cols, row.residual_out_aligned, h);
  return h;
}

// y = (h - mean) * rstd * scale + shift, all in fp32, rounded to T once.
template <typename T, typename P, bool kAligned>
__device__ void normalise_and_store(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                    std::int64_t first, Statistics s, const Vector<T>& h) {
  constexpr int kWidth = Vector<T>::kWidth;
  float scale[kWidth], shift[kWidth];
  if (t.weight != nullptr) {
    load_parameters<kAligned>(t.weight, first, t.cols, row.weight_aligned, scale);
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      scale[j] = 1.0f;
  }
  if (t.bias != nullptr) {
    load_parameters<kAligned>(t.bias, first, t.cols, row.bias_aligned, shift);
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      shift[j] = 0.0f;
  }
  const float offset = t.weight != nullptr && t.weight_plus_one ? 1.0f : 0.0f;
  Vector<T> y;
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {
    const float normalised = (to_float(h.element[j]) - s.mean) * s.rstd;
    y.element[j] = from_float<T>(normalised * (scale[j] + offset) + shift[j]);
  }
  store_chunk<kAligned>(row.y, first, t.cols, row.y_aligned, y);
}
// [rounding]

template <typename T, typename P>
__device__ void write_statistics(const Tensors<T, P>& t, std::int64_t r, Statistics s,
                                 bool centre) {
  if (threadIdx.x != 0) return;
  if (centre && t.mean != nullptr) t.mean[r] = s.mean;
  if (t.rstd != nullptr) t.rstd[r] = s.rstd;
}

// The first element of chunk c: chunks start on the 16-byte grid, lead elements before the row.
__device__ std::int64_t chunk_start(std::int64_t c, int width, int lead) {
  return c * width - lead;
}

__device__ bool in_row(std::int64_t col, std::int64_t cols) {
  return col >= 0 && col < cols;
}

// [statistics]
// Mean (LayerNorm) and 1 / sqrt(mean square + eps) of a row held in registers, in fp32 and in
// two passes over the registers: the squared deviations are summed around the fp32 mean, so a
// row far from zero loses nothing. Elements outside the row hold zero: harmless in the sums of
// h and h^2, masked out of the deviations.
template <bool kCentre, bool kAligned, int kVectors, typename T>
__device__ Statistics row_statistics(const Vector<T> (&h)[kVectors], int lead, std::int64_t cols,
                                     float eps) {
  constexpr int kWidth = Vector<T>::kWidth;
  float mean = 0.0f;
  if constexpr (kCentre) {
    float sum = 0.0f;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        sum += to_float(h[v].element[j]);
    }
    mean = block_sum(sum) / static_cast<float>(cols);
  }
  float squares = 0.0f;
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t first = chunk_start(v * blockDim.x + threadIdx.x, kWidth, lead);
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      float d = to_float(h[v].element[j]) - mean;
      if (kCentre && !(kAligned ? first < cols : in_row(first + j, cols))) d = 0.0f;
      squares += d * d;
    }
  }
  return {mean, rsqrtf(block_sum(squares) / static_cast<float>(cols) + eps)};
}
// [statistics]

// [kernel]
// One block per row; thread t keeps chunks t, t + blockDim.x, ... (kVectors of them) in
// registers, as loaded: 16 bytes each, converted to fp32 where they are used. What changed
// from chapter 06: any dtype, a chunk grid that follows memory alignment, int64 offsets.
// Rows beyond the grid are taken by the same blocks.
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(kMostThreads<kVectors>, 1)
    norm_in_registers(const Tensors<T, P> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    const auto row = row_of<kAligned>(t, r);
    Vector<T> h[kVectors];  // x, or x + residual rounded to T
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = chunk_start(v * blockDim.x + threadIdx.x, kWidth, row.lead);
      h[v] = load_chunk<kAligned>(row.x, first, t.cols, true);
      if constexpr (kAdd) h[v] = add_residual(t, row, first, h[v]);
    }
    const Statistics s = row_statistics<kCentre, kAligned>(h, row.lead, t.cols, t.eps);
    write_statistics(t, r, s, kCentre);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = chunk_start(v * blockDim.x + threadIdx.x, kWidth, row.lead);
      normalise_and_store(t, row, first, s, h[v]);
    }
  }
}
// [kernel]

// [streaming]
// Rows too wide for registers: the same arithmetic, reading the row from memory once per pass
// (RMSNorm two passes, LayerNorm three). After the first pass the row is read back from x, or
// for add + norm from the stored h. Every pass gives a chunk to the same thread, so a chunk is
// always read before that thread overwrites it, and in place stays safe.
template <typename T, typename P, bool kCentre, bool kAdd>
__global__ void __launch_bounds__(kStreamingThreads, 1) norm_streaming(const Tensors<T, P> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr bool kAligned = false;
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    const auto row = row_of<kAligned>(t, r);
    const T* source = kAdd ? row.residual_out : row.x;
    const bool source_aligned = kAdd ? row.residual_out_aligned : true;
    float sum = 0.0f;  // of h (LayerNorm) or of h^2 (RMSNorm)
    for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
      Vector<T> h = load_chunk<kAligned>(row.x, chunk_start(c, kWidth, row.lead), t.cols, true);
      if constexpr (kAdd) h = add_residual(t, row, chunk_start(c, kWidth, row.lead), h);
#pragma unroll
      for (int j = 0; j < kWidth; ++j) {
        const float value = to_float(h.element[j]);
        sum += kCentre ? value : value * value;
      }
    }
    Statistics s{0.0f, 0.0f};
    float squares = block_sum(sum);
    if constexpr (kCentre) {
      s.mean = squares / static_cast<float>(t.cols);
      float deviations = 0.0f;
      for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
        const std::int64_t first = chunk_start(c, kWidth, row.lead);
        const Vector<T> h = load_chunk<kAligned>(source, first, t.cols, source_aligned);
#pragma unroll
        for (int j = 0; j < kWidth; ++j) {
          const float d = in_row(first + j, t.cols) ? to_float(h.element[j]) - s.mean : 0.0f;
          deviations += d * d;
        }
      }
      squares = block_sum(deviations);
    }
    s.rstd = rsqrtf(squares / static_cast<float>(t.cols) + t.eps);
    write_statistics(t, r, s, kCentre);
    for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      normalise_and_store(t, row, first, s,
                          load_chunk<kAligned>(source, first, t.cols, source_aligned));
    }
  }
}
// [streaming]

// [dispatch]
// Whether every row of a tensor starts on a 16-byte boundary (null tensors are absent).
bool rows_aligned(const void* data, std::int64_t stride, std::int64_t element_bytes) {
  return reinterpret_cast<std::uintptr_t>(data) % kVectorBytes == 0 &&
         stride * element_bytes % kVectorBytes == 0;
}

// The most chunks a row of x spans: one per 16 bytes, plus one when rows do not start on a
// 16-byte boundary. When the stride keeps every row's alignment, the first row tells.
std::int64_t most_chunks(const void* x, std::int64_t stride, std::int64_t cols,
                         std::int64_t element_bytes) {
  const std::int64_t width = kVectorBytes / element_bytes;
  const bool rows_share_alignment = stride * element_bytes % kVectorBytes == 0;
  const std::int64_t lead =
      rows_share_alignment
          ? static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(x) % kVectorBytes) /
                element_bytes
          : width - 1;
  return (lead + cols + width - 1) / width;
}

// Whole warps, enough for every chunk when each thread keeps vectors of them.
unsigned int threads_for(std::int64_t chunks, int vectors) {
  const std::int64_t threads = (chunks + vectors - 1) / vectors;
  return static_cast<unsigned int>((threads + kWarp - 1) / kWarp * kWarp);
}

template <typename T, typename P, bool kCentre, bool kAdd>
void launch(const NormCall& call, cudaStream_t stream) {
  const Tensors<T, P> t{.x = static_cast<const T*>(call.x),
                        .x_stride = call.x_stride,
                        .residual = static_cast<const T*>(call.residual),
                        .residual_stride = call.residual_stride,
                        .y = static_cast<T*>(call.y),
                        .y_stride = call.y_stride,
                        .residual_out = static_cast<T*>(call.residual_out),
                        .residual_out_stride = call.residual_out_stride,
                        .weight = static_cast<const P*>(call.weight),
                        .bias = static_cast<const P*>(call.bias),
                        .weight_plus_one = call.weight_plus_one,
                        .mean = call.mean,
                        .rstd = call.rstd,
                        .rows = call.rows,
                        .cols = call.cols,
                        .eps = call.eps};
  // Aligned: every row of every tensor and both parameter vectors start on a 16-byte
  // boundary and a row is a whole number of vectors, so no chunk needs element-by-element code.
  const auto element = static_cast<std::int64_t>(sizeof(T));
  const bool aligned = call.cols % Vector<T>::kWidth == 0 &&
                       rows_aligned(call.x, call.x_stride, element) &&
                       rows_aligned(call.y, call.y_stride, element) &&
                       rows_aligned(call.residual, call.residual_stride, element) &&
                       rows_aligned(call.residual_out, call.residual_out_stride, element) &&
                       rows_aligned(call.weight, 0, element) && rows_aligned(call.bias, 0, element);
  const std::int64_t chunks = most_chunks(call.x, call.x_stride, call.cols, element);
  const auto grid = static_cast<unsigned int>(std::min<std::int64_t>(call.rows, INT_MAX));
  // Four vectors a thread (64 bytes of a 16-bit row) while a block of at most 512 threads
  // holds the row; eight for wider aligned rows; wider rows still are streamed.
  if (aligned && chunks <= 4 * kMostThreads<4>) {
    norm_in_registers<T, P, 4, kCentre, kAdd, true><<<grid, threads_for(chunks, 4), 0, stream>>>(t);
  } else if (aligned && chunks <= 8 * kMostThreads<8>) {
    norm_in_registers<T, P, 8, kCentre, kAdd, true><<<grid, threads_for(chunks, 8), 0, stream>>>(t);
  } else if (chunks <= 4 * kMostThreads<4>) {
    norm_in_registers<T, P, 4, kCentre, kAdd, false>
        <<<grid, threads_for(chunks, 4), 0, stream>>>(t);
  } else {
    norm_streaming<T, P, kCentre, kAdd><<<grid, kStreamingThreads, 0, stream>>>(t);
  }
  NORMLAB_CHECK_LAUNCH();
}

template <bool kCentre, bool kAdd>
void launch_for_dtypes(const NormCall& call, cudaStream_t stream) {
  const bool fp32_parameters = call.weight_dtype == DType::f32;
  switch (call.dtype) {
    case DType::f32:
      return launch<float, float, kCentre, kAdd>(call, stream);
    case DType::f16:
      return fp32_parameters ? launch<__half, float, kCentre, kAdd>(call, stream)
                             : launch<__half, __half, kCentre, kAdd>(call, stream);
    case DType::bf16:
      return fp32_parameters ? launch<__nv_bfloat16, float, kCentre, kAdd>(call, stream)
                             : launch<__nv_bfloat16, __nv_bfloat16, kCentre, kAdd>(call, stream);
  }
}
// [dispatch]

}  // namespace

// [validate]
void forward(const NormCall& call, cudaStream_t stream) {
  const char* fn = "ch07::forward";
  check_argument(call.op == Op::rmsnorm || call.op == Op::layernorm || is_add(call.op), fn, "op",
                 std::string("must be rmsnorm, layernorm, add_rmsnorm or add_layernorm (got ") +
                     name_of(call.op) + ")");
  check_argument(call.weight_dtype == call.dtype || call.weight_dtype == DType::f32, fn,
                 "weight_dtype",
                 std::string("must be the input dtype or fp32 (got ") + name_of(call.weight_dtype) +
                     " with " + name_of(call.dtype) + " inputs)");
  validate_shape(fn, call.rows, call.cols);
  validate_eps(fn, call.eps);
  const auto element = static_cast<std::int64_t>(size_of(call.dtype));
  const auto parameter = static_cast<std::int64_t>(size_of(call.weight_dtype));
  auto tensor = [&](const char* name, const void* data, std::int64_t stride) {
    validate_tensor(fn, name, data, call.rows, call.cols, stride);
    validate_alignment(fn, name, data, stride, element, element);
  };
  tensor("x", call.x, call.x_stride);
  tensor("y", call.y, call.y_stride);
  if (is_add(call.op)) {
    tensor("residual", call.residual, call.residual_stride);
    tensor("residual_out", call.residual_out, call.residual_out_stride);
  }
  validate_alignment(fn, "weight", call.weight, 0, parameter, parameter);
  validate_alignment(fn, "bias", call.bias, 0, parameter, parameter);
  if (call.rows == 0) return;

  NormCall used = call;
  if (!is_add(call.op)) used.residual = used.residual_out = nullptr;
  if (call.op == Op::rmsnorm || call.op == Op::add_rmsnorm) used.bias = nullptr;
  switch (call.op) {
    case Op::rmsnorm:
      return launch_for_dtypes<false, false>(used, stream);
    case Op::layernorm:
      return launch_for_dtypes<true, false>(used, stream);
    case Op::add_rmsnorm:
      return launch_for_dtypes<false, true>(used, stream);
    case Op::add_layernorm:
      return launch_for_dtypes<true, true>(used, stream);
    default:
      return;
  }
}
// [validate]

std::vector<KernelEntry> kernels() {
  std::vector<KernelEntry> entries;
  const struct {
    Op op;
    const char* name;
    const char* summary;
  } ops[] = {
      {Op::rmsnorm, "ch07_rmsnorm", "any dtype, stride, alignment; fp32 statistics"},
      {Op::layernorm, "ch07_layernorm", "any dtype, stride, alignment; fp32 statistics"},
      {Op::add_rmsnorm, "ch07_add_rmsnorm", "h = x + r rounded, then RMSNorm; any tensor"},
      {Op::add_layernorm, "ch07_add_layernorm", "h = x + r rounded, then LayerNorm; any tensor"},
  };
  for (const auto& op : ops) {
    entries.push_back({.name = op.name,
                       .chapter = 7,
                       .summary = op.summary,
                       .op = op.op,
                       .can = {.dtypes = {DType::f32, DType::f16, DType::bf16},
                               .fp32_parameters = true,
                               .optional_parameters = true,
                               .weight_plus_one = true,
                               .in_place = true,
                               .writes_statistics = true},
                       .launch = forward,
                       .default_for_op = true});
  }
  return entries;
}

}  // namespace normlab::ch07
