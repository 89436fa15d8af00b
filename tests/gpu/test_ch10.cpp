// SPDX-License-Identifier: Apache-2.0
// Chapter 10 on the GPU: each path (a cluster, the whole GPU, a split row) and the chapter's
// choice, for every op, on rows from 16384 to 4194304 columns (powers of two and odd widths),
// in every dtype pairing; the cluster path with several rows a cluster; the whole GPU's forms
// that take rows in pairs and that hold the parameters; every option (strides,
// misalignment, in place, (1 + w), parameters, statistics, shifted rows); PyTorch's 2 x 9437184
// fp32 LayerNorm; paths refused by name, before anything is written, when they cannot hold the
// row or lack their scratch; and the cluster family's configurations, each forced.
#include "normlab_catch.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "grading.hpp"
#include "hand_case.hpp"
#include "norm_cases.hpp"
#include "normlab/buffer.hpp"
#include "normlab/kernel.hpp"
#include "normlab/registry.hpp"
#include "spread.cuh"

namespace {

using namespace normlab;
using norm_cases::CaseVariant;
using norm_cases::parameter_variants;
using norm_cases::registered;
using norm_cases::require_all_pass;

constexpr Op kOps[] = {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm};
const char* const kPaths[] = {"", "_cluster", "_whole_gpu", "_split"};

using hand_case::DTypes;
constexpr DTypes kDTypes[] = {
    {DType::f32, DType::f32}, {DType::f16, DType::f32}, {DType::bf16, DType::bf16}};

const KernelEntry& kernel_of(Op op, const char* path) {
  return registered((std::string("ch10_") + name_of(op) + path).c_str());
}

Case make_case(Op op, DTypes d, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(op, rows, cols, d.dtype);
  c.shape.weight_dtype = d.weight_dtype;
  c.input.seed = seed;
  return c;
}

// Grades @p kernel on the cases it takes; the forced cluster entries declare rows on the
// 16-byte grid of at most 512 KiB (131072 fp32 or 262144 16-bit columns; entries.cpp) and refuse
// the others by name, which the chapter's choice (path "") takes.
void require_taken_pass(const KernelEntry& kernel, const std::vector<Case>& cases) {
  std::vector<Case> taken;
  for (const Case& c : cases) {
    if (kernel.refusal(c).empty()) taken.push_back(c);
  }
  if (!taken.empty()) require_all_pass(kernel, taken);
}

}  // namespace

TEST_CASE("every path, every op, rows from 16384 to 4194304 columns", "[ch10]") {
  struct Width {
    std::int64_t cols, rows;
  };
  // Powers of two and odd widths; the cluster's last fp32 width (131069) and the next.
  const Width widths[] = {{16384, 5},   {16389, 3},   {65536, 3},  {65541, 3},
                          {131069, 2},  {131073, 2},  {262144, 2}, {1048573, 1},
                          {1048576, 2}, {4194301, 1}, {4194304, 2}};
  std::uint64_t seed = 10000;
  for (Op op : kOps) {
    for (const char* path : kPaths) {
      const KernelEntry& kernel = kernel_of(op, path);
      std::vector<Case> cases;
      for (const DTypes& types : kDTypes) {
        for (const Width& w : widths) {
          if (w.cols > 1048576 && types.dtype != DType::f32) continue;  // fp32 is the widest
          cases.push_back(make_case(op, types, w.rows, w.cols, seed++));
        }
      }
      INFO(kernel.name);
      require_taken_pass(kernel, cases);
    }
  }
}

TEST_CASE("the cluster path with more rows than clusters: each loops over rows", "[ch10]") {
  // The cluster kernel's grid is as many clusters as the GPU holds at once, each taking rows
  // c, c + clusters, ... with the next rows' copies in flight (cluster.cu). Here every cluster
  // takes several rows, so the stages wrap around: 1000 x 16384 (clusters of 2 blocks), 300 x
  // 65536 fp32 (of 16), and rows off the 16-byte grid (through registers, one stage).
  struct Shape {
    DTypes types;
    std::int64_t rows, cols;
  };
  const Shape shapes[] = {{{DType::bf16, DType::bf16}, 1000, 16384},
                          {{DType::f32, DType::f32}, 300, 65536},
                          {{DType::f16, DType::f32}, 997, 16389}};
  std::uint64_t seed = 30000;
  for (Op op : kOps) {
    for (const char* path : {"", "_cluster"}) {
      const KernelEntry& kernel = kernel_of(op, path);
      std::vector<Case> cases;
      for (const Shape& s : shapes)
        cases.push_back(make_case(op, s.types, s.rows, s.cols, seed++));
      INFO(kernel.name);
      require_taken_pass(kernel, cases);
    }
  }
}

TEST_CASE("the whole GPU taking rows in pairs: every option, odd rows, one row", "[ch10]") {
  // fp32 rows on the 16-byte grid with nothing to add that the held form does not take go in
  // pairs (whole_gpu.cu, norm_whole_gpu_pairs). On a GPU of 132 SMs 4600000 columns are 1150000
  // chunks: more than the held form holds (16 vectors a thread) and than the registers hold, so
  // each thread keeps some of row r in a stash. 5 rows: two pairs, whose parts go to the two
  // halves of the scratch in turn, and a last row alone, with the statistics; each option on a
  // pair; one row alone takes the lean kernel.
  std::vector<CaseVariant> variants = parameter_variants();
  variants.push_back({"in place, rows 16-byte strided",
                      [](Case& c) { return c.in_place = true, c.pad = 8, true; }});
  std::uint64_t seed = 40000;
  for (Op op : {Op::rmsnorm, Op::layernorm}) {
    const KernelEntry& kernel = kernel_of(op, "_whole_gpu");
    INFO(kernel.name);
    Case five = make_case(op, kDTypes[0], 5, 4600000, seed++);
    five.statistics = true;  // the last row's too, written alone
    require_all_pass(kernel, {five, make_case(op, kDTypes[0], 1, 4600000, seed++)});
    for (const CaseVariant& variant : variants) {
      Case c = make_case(op, kDTypes[0], 2, 4600000, seed++);
      if (!variant.apply(c)) continue;
      INFO(variant.name);
      require_all_pass(kernel, {c});
    }
  }
}

TEST_CASE("the whole GPU with the parameters held in shared memory: every option", "[ch10]") {
  // fp32 rows on the 16-byte grid with nothing to add, of 6 to 16 vectors a thread over the
  // whole GPU, take the held form (whole_gpu.cu, norm_whole_gpu_held). On a GPU of 132 SMs
  // 3000004 columns are 750001 chunks: 12 vectors a thread, the last one ragged, so LayerNorm's
  // bias comes from shared memory for the first 11 and from L2 for the 12th; 3 rows, each
  // prefetched while the row before is stored.
  std::vector<CaseVariant> variants = parameter_variants();
  variants.push_back({"plain", [](Case&) { return true; }});
  variants.push_back({"in place, rows 16-byte strided",
                      [](Case& c) { return c.in_place = true, c.pad = 8, true; }});
  std::uint64_t seed = 41000;
  for (Op op : {Op::rmsnorm, Op::layernorm}) {
    for (const CaseVariant& variant : variants) {
      Case c = make_case(op, kDTypes[0], 3, 3000004, seed++);
      if (!variant.apply(c)) continue;
      INFO(name_of(op) << ": " << variant.name);
      require_all_pass(kernel_of(op, "_whole_gpu"), {c});
    }
  }
}

TEST_CASE("PyTorch's own 2 x 9437184 fp32 LayerNorm, and rows = 0", "[ch10]") {
  std::vector<Case> cases{make_case(Op::layernorm, kDTypes[0], 2, 9437184, 10500),
                          make_case(Op::layernorm, kDTypes[0], 0, 70000, 10501)};
  require_all_pass(kernel_of(Op::layernorm, ""), cases);
  require_all_pass(kernel_of(Op::layernorm, "_split"), cases);
}

TEST_CASE("every path, every option: strides, misalignment, in place, (1 + w), statistics",
          "[ch10]") {
  std::vector<CaseVariant> variants = {
      {"rows 16-byte strided", [](Case& c) { return c.pad = 8, true; }},
      {"odd stride: every row its own alignment", [](Case& c) { return c.pad = 5, true; }},
      {"misaligned by 3, odd stride", [](Case& c) { return c.misalign = 3, c.pad = 5, true; }},
      {"in place, misaligned, strided",
       [](Case& c) { return c.in_place = true, c.misalign = 5, c.pad = 3, true; }},
      // fp32 rows at 300, not 1000: there a mean computed in fp32 may land 2 to 3 units in its
      // last place from the exact one (ulp(1000) = 6.1e-5), which y's bound, 1e-4 + 1e-4 |y|,
      // does not hold. At 300 (ulp 3.1e-5) three fit.
      {"rows shifted far from 0",
       [](Case& c) {
         c.input.distribution = Distribution::uniform;
         c.input.mean = c.shape.dtype == DType::f32 ? 300.0 : 1000.0;
         return true;
       }},
  };
  for (const CaseVariant& v : parameter_variants())
    variants.push_back(v);
  std::uint64_t seed = 10600;
  for (Op op : kOps) {
    for (const char* path : kPaths) {
      for (const CaseVariant& variant : variants) {
        std::vector<Case> cases;
        for (const DTypes& types : kDTypes) {
          for (std::int64_t cols : {16391, 70001}) {
            Case c = make_case(op, types, 3, cols, seed++);
            if (variant.apply(c)) cases.push_back(c);
          }
        }
        if (cases.empty()) continue;  // the variant does not apply to this op
        INFO(name_of(op) << path << ": " << variant.name);
        require_taken_pass(kernel_of(op, path), cases);
      }
    }
  }
}

TEST_CASE("a path that cannot take the call is refused by name; nothing is written", "[ch10]") {
  // One fp32 row a chunk wider than a cluster holds, which the whole GPU holds; then a row wider
  // than any GPU normlab knows holds (12582912 fp32 = 48 MiB).
  const std::int64_t past_cluster = kernels::spread::cluster_chunks(true) * 4 + 4;
  for (const std::int64_t cols : {past_cluster, std::int64_t{12582912}}) {
    HostMatrix x(DType::f32, 1, cols), y(DType::f32, 1, cols);
    fill_random(x, {});
    const PlacedMatrix x_device(x, 0), y_device(y, 0);
    const std::size_t scratch_bytes = kernels::spread::scratch_bytes(1, cols, 4);
    const DeviceBuffer<unsigned char> scratch(scratch_bytes);
    NormCall call{.op = Op::rmsnorm, .rows = 1, .cols = cols};
    call.x = x_device.data();
    call.x_stride = cols;
    call.y = y_device.data();
    call.y_stride = cols;
    const kernels::Tensors<float, float> t{.x = static_cast<const float*>(call.x),
                                           .x_stride = cols,
                                           .y = static_cast<float*>(call.y),
                                           .y_stride = cols,
                                           .rows = 1,
                                           .cols = cols,
                                           .eps = 1e-5f};
    const kernels::spread::Scratch enough{scratch.data(), scratch_bytes};
    const kernels::spread::Path cluster = kernels::spread::Path::cluster,
                                whole_gpu = kernels::spread::Path::whole_gpu,
                                split = kernels::spread::Path::split;
    CHECK_THROWS_WITH(kernels::spread::rmsnorm(t, enough, nullptr, &cluster),
                      Catch::Contains("'cols'") && Catch::Contains("too wide for a cluster"));
    CHECK_THROWS_WITH(kernels::spread::rmsnorm(t, kernels::spread::Scratch{}, nullptr, &split),
                      Catch::Contains("'scratch'") && Catch::Contains("must hold"));
    if (cols == past_cluster) {
      CHECK_THROWS_WITH(kernels::spread::rmsnorm(t, kernels::spread::Scratch{scratch.data(), 16},
                                                 nullptr, &whole_gpu),
                        Catch::Contains("'scratch'"));
    } else {
      CHECK_THROWS_WITH(kernels::spread::rmsnorm(t, enough, nullptr, &whole_gpu),
                        Catch::Contains("'cols'") && Catch::Contains("too wide for the whole GPU"));
    }
    NORMLAB_CHECK(cudaDeviceSynchronize());
    y_device.download(y);
    CHECK(y.is_poison(0, 0));
    CHECK(y.is_poison(0, cols - 1));
    // The chapter's choice takes it.
    kernels::spread::rmsnorm(t, enough, nullptr);
    NORMLAB_CHECK(cudaDeviceSynchronize());
    y_device.download(y);
    CHECK_FALSE(y.is_poison(0, 0));
    CHECK_FALSE(y.is_poison(0, cols - 1));
  }
}

TEST_CASE("the whole-GPU entries' capabilities refuse exactly the rows their launcher cannot take",
          "[ch10]") {
  // For every op, rows from one a cluster cannot hold to wider than any GPU normlab knows holds
  // (12582912 fp32 columns = 48 MiB), fp32 2 x 9437184 among them (PyTorch's LayerNorm test;
  // add + RMSNorm's row is wider than an H100's SMs hold, LayerNorm's is not): a call the
  // capabilities take runs and matches the float64 reference; a call they refuse names the
  // chunks and what the GPU holds (the test above shows the launcher's own refusal).
  const std::int64_t past_cluster = kernels::spread::cluster_chunks(true) * 4 + 4;
  for (Op op : kOps) {
    const KernelEntry& kernel = kernel_of(op, "_whole_gpu");
    for (const std::int64_t cols : {past_cluster, std::int64_t{9437184}, std::int64_t{12582912}}) {
      const Case c = make_case(op, {DType::f32, DType::f32}, 1, cols, 1500 + cols);
      const std::string refusal = kernel.refusal(c);
      INFO(kernel.name << " at 1 x " << cols << ": " << (refusal.empty() ? "taken" : refusal));
      if (refusal.empty()) {
        require_all_pass(kernel, {c});
      } else {
        CHECK_THAT(refusal, Catch::Contains("16-byte chunks") && Catch::Contains("holds"));
        CHECK(cols != past_cluster);
      }
    }
    const std::string widest =
        kernel.refusal(make_case(op, {DType::f32, DType::f32}, 1, 12582912, 1));
    CHECK_FALSE(widest.empty());
  }
}

TEST_CASE("the cluster family's configurations: clusters of 1 to 16 blocks, every option",
          "[ch10]") {
  // Each configuration forced (ch10_<op>_cluster@<threads>x4): rows that give it 1, 3 (one chunk
  // into the third) and 16 blocks, more rows than clusters, and rows of part of a chunk (their
  // stride on the 16-byte grid), which 512 threads a block refuse; then every option it takes.
  std::vector<CaseVariant> variants = {
      {"rows 16-byte strided", [](Case& c) { return c.pad = 8, true; }},
      {"in place", [](Case& c) { return c.in_place = true, true; }},
  };
  for (const CaseVariant& v : parameter_variants())
    variants.push_back(v);
  std::uint64_t seed = 40000;
  for (Op op : kOps) {
    for (const int threads : kernels::spread::kClusterThreads) {
      const std::string config = "_cluster@" + std::to_string(threads) + "x4";
      const KernelEntry& kernel = kernel_of(op, config.c_str());
      const std::int64_t chunks_a_block = std::int64_t{threads} * kernels::spread::kClusterVectors;
      std::vector<Case> cases;
      for (const DTypes& types : kDTypes) {
        const std::int64_t width = 16 / static_cast<std::int64_t>(size_of(types.dtype));
        for (std::int64_t blocks : {1, 3, 16}) {
          const std::int64_t cols = ((blocks - 1) * chunks_a_block + 1) * width;
          cases.push_back(
              make_case(op, types, 5, blocks == 1 ? chunks_a_block * width : cols, seed++));
        }
        cases.push_back(make_case(op, types, 200, (2 * chunks_a_block + 1) * width, seed++));
        Case part_chunk = make_case(op, types, 7, 3 * chunks_a_block * width - 3, seed++);
        part_chunk.pad = 3;  // the stride a whole number of chunks
        if (threads == 512) {
          CHECK_THAT(kernel.refusal(part_chunk), Catch::Contains("whole number of 16-byte"));
        } else {
          cases.push_back(part_chunk);
        }
      }
      for (const Case& c : cases)
        CHECK(kernel.refusal(c).empty());
      INFO(kernel.name);
      require_all_pass(kernel, cases);
      for (const CaseVariant& variant : variants) {
        std::vector<Case> varied;
        for (const DTypes& types : kDTypes) {
          Case c = make_case(op, types, 3, 3 * chunks_a_block * 8 + 8, seed++);
          if (variant.apply(c)) varied.push_back(c);
        }
        if (varied.empty()) continue;  // the variant does not apply to this op
        INFO(variant.name);
        require_all_pass(kernel, varied);
      }
    }
  }
}

TEST_CASE("a cluster configuration that cannot take the call is refused by name", "[ch10]") {
  // The launcher's own refusals (its entries' capabilities refuse these calls first): 512
  // threads a block on a row of part of a chunk, a row wider than 16 blocks of 128 threads hold,
  // and a configuration not compiled. Nothing is written.
  for (const auto& [cols, threads, argument] :
       {std::tuple{std::int64_t{4097}, 512, "'cluster_threads'"},
        std::tuple{std::int64_t{16 * 128 * 4 * 4 + 4}, 128, "'cols'"},
        std::tuple{std::int64_t{4096}, 384, "'threads'"}}) {
    HostMatrix x(DType::f32, 2, cols), y(DType::f32, 2, cols);
    fill_random(x, {});
    const PlacedMatrix x_device(x, 0), y_device(y, 0);
    NormCall call{.op = Op::rmsnorm, .rows = 2, .cols = cols};
    call.x = x_device.data();
    call.x_stride = cols;
    call.y = y_device.data();
    call.y_stride = cols;
    INFO(cols << " columns, " << threads << " threads");
    CHECK_THROWS_WITH(kernels::spread::forward_cluster(call, nullptr, threads),
                      Catch::Contains(argument));
    NORMLAB_CHECK(cudaDeviceSynchronize());
    y_device.download(y);
    CHECK(y.is_poison(0, 0));
    CHECK(y.is_poison(1, cols - 1));
  }
}
