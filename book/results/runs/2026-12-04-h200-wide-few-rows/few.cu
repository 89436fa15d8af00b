// Experiment: what a cluster kernel pays over a copy on 1 to 256 wide rows (bf16, RMSNorm and
// LayerNorm), and which of the product kernel's choices cost time there. The product's own
// kernels are included (cluster.cu; cluster_row.cu once it existed) and launched beside lean
// variants of one row per cluster.
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include <cstdint>

#include "cluster.cu"
#include "cluster_row.cu"

namespace few {
namespace cg = cooperative_groups;
using bf16 = __nv_bfloat16;

__device__ __forceinline__ void to_floats(uint4 u, float (&f)[8]) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    f[2 * j] = __uint_as_float(w[j] << 16);
    f[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
  }
}
__device__ __forceinline__ uint4 from_floats(const float (&f)[8]) {
  unsigned w[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    __nv_bfloat162 p = __floats2bfloat162_rn(f[2 * j], f[2 * j + 1]);
    w[j] = *reinterpret_cast<unsigned*>(&p);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
// One barrier: each reduction has its own slots.
__device__ __forceinline__ float block_sum_once(float v, float* part) {
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  return warp_sum(lane < static_cast<int>(blockDim.x / 32) ? part[lane] : 0.0f);
}

struct Args {
  const bf16* x;
  const bf16* w;
  const bf16* b;
  bf16* y;
  int rows;
  int cols;
  float eps;
};

// Bits: 1 parameters loaded with x (else after the statistics); 2 the cluster barrier split,
// arrive before the loads and wait after (else a whole barrier before them); 4 x through shared
// memory by cp.async (else straight into registers); 8 LayerNorm in one exchange (each block's
// mean and squared deviations, combined; else two exchanges, mean then deviations).
template <int VEC, bool LN, int BITS>
__global__ void __launch_bounds__(VEC >= 6 ? 256 : 512) lean(const Args a) {
  constexpr bool kEarly = BITS & 1, kSplit = BITS & 2, kStage = BITS & 4, kChan = BITS & 8;
  extern __shared__ uint4 stash[];
  __shared__ float part[3][16];
  __shared__ float inbox[2][16][2];
  __shared__ std::uint64_t landed[2];
  const cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());
  const int T = blockDim.x;
  const std::int64_t r = blockIdx.x / blocks;
  const int chunks = a.cols / 8;
  const bf16* xr = a.x + r * a.cols;
  if (threadIdx.x == 0) {
    for (auto& l : landed) cuda::ptx::mbarrier_init(&l, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  if constexpr (kSplit) {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
  } else {
    cluster.sync();
  }
  auto chunk = [&](int v) { return v * blocks * T + rank * T + static_cast<int>(threadIdx.x); };
  uint4 h[VEC], wv[VEC], bv[VEC];
  auto load_params = [&] {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      if (chunk(v) < chunks) {
        wv[v] = *reinterpret_cast<const uint4*>(a.w + chunk(v) * 8);
        if (LN) bv[v] = *reinterpret_cast<const uint4*>(a.b + chunk(v) * 8);
      }
    }
  };
  if constexpr (kStage) {
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      if (chunk(v) < chunks)
        __pipeline_memcpy_async(&stash[v * T + threadIdx.x], xr + chunk(v) * 8, sizeof(uint4));
    __pipeline_commit();
  } else {
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      h[v] = chunk(v) < chunks ? *reinterpret_cast<const uint4*>(xr + chunk(v) * 8)
                               : make_uint4(0, 0, 0, 0);
  }
  if constexpr (kEarly) load_params();
  if constexpr (kStage) {
    __pipeline_wait_prior(0);
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      h[v] = chunk(v) < chunks ? stash[v * T + threadIdx.x] : make_uint4(0, 0, 0, 0);
  }
  if constexpr (kSplit) cuda::ptx::barrier_cluster_wait();
  // The cluster's total of one (or two) floats a thread: block_sum, pushed into every block.
  auto push = [&](int e, float v0, float v1, int n) {
    if (threadIdx.x == 0)
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                           cuda::ptx::space_shared, &landed[e],
                                           static_cast<unsigned>(blocks * n * sizeof(float)));
    if (threadIdx.x < static_cast<unsigned>(blocks)) {
      if (n == 1) {
        cuda::ptx::st_async(cluster.map_shared_rank(&inbox[e][rank][0], threadIdx.x), v0,
                            cluster.map_shared_rank(&landed[e], threadIdx.x));
      } else {
        const float pair[2] = {v0, v1};
        cuda::ptx::st_async(cluster.map_shared_rank(&inbox[e][rank][0], threadIdx.x), pair,
                            cluster.map_shared_rank(&landed[e], threadIdx.x));
      }
    }
  };
  auto wait = [&](int e) {
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                                &landed[e], 0)) {
    }
  };
  const int lane = threadIdx.x % 32;
  float mean = 0.0f, rstd;
  if (!LN) {
    float sq = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      float f[8];
      to_floats(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) sq += f[j] * f[j];
    }
    push(0, block_sum_once(sq, part[0]), 0.0f, 1);
    wait(0);
    const float total = warp_sum(lane < blocks ? inbox[0][lane][0] : 0.0f);
    rstd = rsqrtf(total / a.cols + a.eps);
  } else if (!kChan) {
    float s = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      float f[8];
      to_floats(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) s += f[j];
    }
    push(0, block_sum_once(s, part[0]), 0.0f, 1);
    wait(0);
    mean = warp_sum(lane < blocks ? inbox[0][lane][0] : 0.0f) / a.cols;
    float sq = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      float f[8];
      to_floats(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) sq += (f[j] - mean) * (f[j] - mean);
    }
    push(1, block_sum_once(sq, part[1]), 0.0f, 1);
    wait(1);
    rstd = rsqrtf(warp_sum(lane < blocks ? inbox[1][lane][0] : 0.0f) / a.cols + a.eps);
  } else {
    // Block k's element count, its mean and squared deviations around it; combined exactly
    // (Chan et al.) from every block's pair.
    auto count_of = [&](int k) {
      int n = 0;
      for (int v = 0; v < VEC; ++v) n += max(0, min(T, chunks - (v * blocks * T + k * T)));
      return 8.0f * n;
    };
    float s = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      float f[8];
      to_floats(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) s += f[j];
    }
    const float local_mean = block_sum_once(s, part[0]) / count_of(rank);
    float sq = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      float f[8];
      to_floats(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) sq += (f[j] - local_mean) * (f[j] - local_mean);
    }
    push(0, local_mean, block_sum_once(sq, part[1]), 2);
    wait(0);
    const float nk = lane < blocks ? count_of(lane) : 0.0f;
    const float mk = lane < blocks ? inbox[0][lane][0] : 0.0f;
    mean = warp_sum(nk * mk) / a.cols;
    const float m2 =
        warp_sum(lane < blocks ? inbox[0][lane][1] + nk * (mk - mean) * (mk - mean) : 0.0f);
    rstd = rsqrtf(m2 / a.cols + a.eps);
  }
  if constexpr (!kEarly) load_params();
  bf16* yr = a.y + r * a.cols;
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    if (chunk(v) < chunks) {
      float f[8], s[8], o[8];
      to_floats(h[v], f);
      to_floats(wv[v], s);
      if (LN) to_floats(bv[v], o);
#pragma unroll
      for (int j = 0; j < 8; ++j) f[j] = (f[j] - mean) * rstd * s[j] + (LN ? o[j] : 0.0f);
      *reinterpret_cast<uint4*>(yr + chunk(v) * 8) = from_floats(f);
    }
  }
}

template <typename K>
int launch(K kernel, const Args& a, int blocks, int threads, std::size_t smem, cudaStream_t s) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (smem) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = blocks;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(a.rows * blocks);
  c.blockDim = dim3(threads);
  c.dynamicSmemBytes = smem;
  c.stream = s;
  c.attrs = &attr;
  c.numAttrs = 1;
  return static_cast<int>(cudaLaunchKernelEx(&c, kernel, a));
}

template <int VEC, bool LN>
int by_bits(int bits, const Args& a, int blocks, int threads, cudaStream_t s) {
  const std::size_t smem = (bits & 4) ? std::size_t{16} * VEC * threads : 0;
  switch (bits) {
#define V(b) \
  case b:    \
    return launch(lean<VEC, LN, b>, a, blocks, threads, smem, s);
    V(0) V(1) V(2) V(3) V(4) V(7) V(11)
#undef V
  }
  return -1;
}
template <bool LN>
int by_vec(int vec, int bits, const Args& a, int blocks, int threads, cudaStream_t s) {
  switch (vec) {
    case 1: return by_bits<1, LN>(bits, a, blocks, threads, s);
    case 2: return by_bits<2, LN>(bits, a, blocks, threads, s);
    case 3: return by_bits<3, LN>(bits, a, blocks, threads, s);
    case 4: return by_bits<4, LN>(bits, a, blocks, threads, s);
    case 6: return by_bits<6, LN>(bits, a, blocks, threads, s);
    case 8: return by_bits<8, LN>(bits, a, blocks, threads, s);
  }
  return -3;
}
__global__ void copy16(const uint4* x, uint4* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
}  // namespace few

extern "C" int few_launch(int ln, int vec, int bits, int blocks, int threads, const void* x,
                          const void* w, const void* b, void* y, int rows, int cols, float eps,
                          void* stream) {
  if (cols % 8 || (bits & 8 && !ln)) return -2;
  if (static_cast<long long>(vec) * blocks * threads * 8 < cols) return -4;
  const few::Args a{static_cast<const few::bf16*>(x), static_cast<const few::bf16*>(w),
                    static_cast<const few::bf16*>(b), static_cast<few::bf16*>(y), rows, cols, eps};
  auto s = static_cast<cudaStream_t>(stream);
  return ln ? few::by_vec<true>(vec, bits, a, blocks, threads, s)
            : few::by_vec<false>(vec, bits, a, blocks, threads, s);
}

// The product's cluster kernel, as its launcher launches it (cluster_for's shape).
extern "C" int few_product(int ln, const void* x, const void* w, const void* b, void* y, int rows,
                           int cols, float eps, void* stream) {
  using namespace normlab::kernels::spread;
  using T = __nv_bfloat16;
  normlab::kernels::Tensors<T, T> t{};
  t.x = static_cast<const T*>(x);
  t.x_stride = cols;
  t.y = static_cast<T*>(y);
  t.y_stride = cols;
  t.weight = static_cast<const T*>(w);
  t.bias = ln ? static_cast<const T*>(b) : nullptr;
  t.rows = rows;
  t.cols = cols;
  t.eps = eps;
  const ClusterShape shape = cluster_for(cols / 8, true);
  try {
    if (ln) {
      launch_cluster<T, T, true, false>(t, true, shape, static_cast<cudaStream_t>(stream));
    } else {
      launch_cluster<T, T, false, false>(t, true, shape, static_cast<cudaStream_t>(stream));
    }
  } catch (...) {
    return -5;
  }
  return shape.blocks * 1000 + shape.threads;
}

// The product's cluster row kernel (cluster_row.cu) of @p threads x @p vectors.
extern "C" int few_product_row(int ln, int threads, int vectors, const void* x, const void* w,
                               const void* b, void* y, int rows, int cols, float eps,
                               void* stream) {
  using namespace normlab::kernels::spread;
  using T = __nv_bfloat16;
  normlab::kernels::Tensors<T, T> t{};
  t.x = static_cast<const T*>(x);
  t.x_stride = cols;
  t.y = static_cast<T*>(y);
  t.y_stride = cols;
  t.weight = static_cast<const T*>(w);
  t.bias = ln ? static_cast<const T*>(b) : nullptr;
  t.rows = rows;
  t.cols = cols;
  t.eps = eps;
  const ClusterRowShape shape{threads, vectors};
  const auto blocks = static_cast<int>(cluster_row_blocks(cols / 8, shape));
  if (blocks > kMostClusterBlocks) return -6;
  try {
    if (ln) {
      launch_cluster_row<T, T, true, false>(t, shape, blocks, static_cast<cudaStream_t>(stream));
    } else {
      launch_cluster_row<T, T, false, false>(t, shape, blocks, static_cast<cudaStream_t>(stream));
    }
  } catch (...) {
    return -5;
  }
  return blocks;
}

extern "C" int few_copy(const void* x, void* y, int n16, void* stream) {
  few::copy16<<<(n16 + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const uint4*>(x), static_cast<uint4*>(y), n16);
  return static_cast<int>(cudaGetLastError());
}
