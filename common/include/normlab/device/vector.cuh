// SPDX-License-Identifier: Apache-2.0
/// @file vector.cuh
/// @brief The 16-byte vector every fast kernel moves (4 floats or 8 halves), its conversions to
/// and from fp32, and loads and stores of a chunk that may be cut by the row's ends. Taught in
/// chapter 07.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace normlab::device {

inline constexpr int kVectorBytes = 16;

/// The bits of @p from as a To of the same size, e.g. a Vector as the uint4 that shared memory
/// holds it in (std::bit_cast is host-only in nvcc).
template <typename To, typename From>
__device__ __forceinline__ To same_bits(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

// [convert]
__device__ __forceinline__ float to_float(float v) {
  return v;
}
__device__ __forceinline__ float to_float(__half v) {
  return __half2float(v);
}
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

/// Rounds to nearest even: the one place where a result leaves fp32.
template <typename T>
__device__ __forceinline__ T from_float(float v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return v;
  }
}
// [convert]

// [vector_type]
/// The elements of T that fill one 16-byte vector: 4 floats or 8 halves. Its alignment lets the
/// compiler move it with a single 128-bit load or store.
template <typename T>
struct alignas(kVectorBytes) Vector {
  static constexpr int kWidth = kVectorBytes / sizeof(T);
  T element[kWidth];
};
// [vector_type]

// [convert_vector]
/// A whole vector's elements as fp32. Element by element, to_float makes the compiler cut each
/// 16-bit element out of its 32-bit register before widening it: two instructions an element.
/// Taken a 32-bit word (two elements) at a time it is one: a bf16 is the top half of an fp32,
/// so the low element widens by a shift and the high one by masking off the low half (exact,
/// as to_float is); fp16 pairs widen together (__half22float2).
template <typename T>
__device__ __forceinline__ void to_floats(const Vector<T>& v, float (&out)[Vector<T>::kWidth]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const uint4 words = same_bits<uint4>(v);
    const unsigned int w[4] = {words.x, words.y, words.z, words.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      out[2 * i] = __uint_as_float(w[i] << 16);
      out[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
    }
  } else if constexpr (std::is_same_v<T, __half>) {
#pragma unroll
    for (int i = 0; i < Vector<T>::kWidth; i += 2) {
      const float2 pair = __half22float2(__halves2half2(v.element[i], v.element[i + 1]));
      out[i] = pair.x;
      out[i + 1] = pair.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < Vector<T>::kWidth; ++i)
      out[i] = v.element[i];
  }
}

/// Adds the squares of a vector's elements to @p sum in fp32, one element after another (the
/// order, and so the rounding, of a loop over the elements). By value: a vector in shared memory
/// comes in one 16-byte load.
template <typename T>
__device__ __forceinline__ void accumulate_squares(float& sum, Vector<T> v) {
#pragma unroll
  for (int j = 0; j < Vector<T>::kWidth; ++j) {
    const float value = to_float(v.element[j]);
    sum += value * value;
  }
}

/// fp32 values rounded to T (nearest even, as from_float) and packed into a vector: 16-bit
/// types two at a time, one conversion instruction a pair instead of one an element and a
/// byte shuffle to pack it.
template <typename T>
__device__ __forceinline__ Vector<T> from_floats(const float (&in)[Vector<T>::kWidth]) {
  Vector<T> v;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
#pragma unroll
    for (int i = 0; i < Vector<T>::kWidth; i += 2) {
      const __nv_bfloat162 pair = __floats2bfloat162_rn(in[i], in[i + 1]);
      v.element[i] = pair.x;
      v.element[i + 1] = pair.y;
    }
  } else if constexpr (std::is_same_v<T, __half>) {
#pragma unroll
    for (int i = 0; i < Vector<T>::kWidth; i += 2) {
      const __half2 pair = __floats2half2_rn(in[i], in[i + 1]);
      v.element[i] = pair.x;
      v.element[i + 1] = pair.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < Vector<T>::kWidth; ++i)
      v.element[i] = in[i];
  }
  return v;
}
// [convert_vector]

// [load_chunk]
/// Elements [first, first + width) of a row of cols elements; elements outside the row read as
/// zero. A chunk wholly inside the row and on a 16-byte boundary (@p aligned) moves as one
/// vector, any other chunk element by element. kAligned promises that every chunk is either a
/// whole aligned vector inside the row or wholly past its end, and so drops the
/// element-by-element code.
template <bool kAligned, typename T>
__device__ Vector<T> load_chunk(const T* row, std::int64_t first, std::int64_t cols, bool aligned) {
  constexpr int kWidth = Vector<T>::kWidth;
  if constexpr (kAligned) {
    uint4 words = make_uint4(0u, 0u, 0u, 0u);
    if (first < cols) words = *reinterpret_cast<const uint4*>(row + first);
    return same_bits<Vector<T>>(words);
  }
  if (aligned && first >= 0 && first + kWidth <= cols) {
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
// [load_chunk]

/// Asks L2 for the line holding @p address (PTX prefetch.global.L2) and goes on: no register
/// waits for it, so a later load of it finds it in L2 instead of DRAM.
template <typename T>
__device__ __forceinline__ void prefetch_l2(const T* address) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
}

/// Loads the whole vector at @p at, on the 16-byte grid, as one 128-bit load written out in PTX,
/// issued in the code's order among the other loads made so. A plain load of a value used only
/// later (a weight used after the statistics) the compilers may move down towards its use, past
/// the sums of x that wait for x's load: the two loads then wait for memory one after the other
/// instead of together. ptxas keeps relaxed loads (ld.relaxed.gpu) in program order among
/// themselves, so a kernel that loads its weight, then x, this way issues both before its sums
/// start (SASS check slim_held_loads_first). Such a load is served by L2, not L1, which a value
/// read once does not miss, and it orders no other access.
template <typename T>
__device__ __forceinline__ Vector<T> load_vector(const T* at) {
  uint4 words;
  asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(words.x), "=r"(words.y), "=r"(words.z), "=r"(words.w)
               : "l"(at));
  return same_bits<Vector<T>>(words);
}

/// Stores a whole vector at @p at, on the 16-byte grid. 16-bit elements go as one 128-bit store
/// written out in PTX (st.global.v4): a plain assignment of a vector of 16-bit elements let the
/// compiler split some of them into four 32-bit stores, each store of a warp then touching four
/// times the sectors (Nsight Compute found many such stores in chapter 09's kernels). The
/// "memory" clobber keeps every load and store on its side. fp32 vectors keep the plain store:
/// written out, it slowed chapter 09's fp32 LayerNorm.
template <typename T>
__device__ __forceinline__ void store_vector(T* at, const Vector<T>& v) {
  if constexpr (sizeof(T) == 2) {
    const uint4 words = same_bits<uint4>(v);
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(at), "r"(words.x), "r"(words.y),
                 "r"(words.z), "r"(words.w)
                 : "memory");
  } else {
    *reinterpret_cast<Vector<T>*>(at) = v;
  }
}

/// Stores the elements of @p v that lie inside the row: one vector, or element by element.
template <bool kAligned, typename T>
__device__ void store_chunk(T* row, std::int64_t first, std::int64_t cols, bool aligned,
                            const Vector<T>& v) {
  constexpr int kWidth = Vector<T>::kWidth;
  if constexpr (kAligned && sizeof(T) == 2) {
    if (first < cols) store_vector(row + first, v);
    return;
  }
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

}  // namespace normlab::device
