// SPDX-License-Identifier: Apache-2.0
// Chapter 09 on the GPU: the dispatcher (ch09_<op>, every op's default kernel) on both sides of
// every boundary of its decision table in every dtype and weight dtype; row counts that leave a
// narrow block's last groups without a row; every option (strides, misalignment, in place,
// (1 + w), parameters, statistics); every configuration of the table run alone (the sweep's
// entries); and a forced configuration refused by name before anything is written.
#include "normlab_catch.hpp"

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "configs.hpp"
#include "configured_entries.hpp"
#include "grading.hpp"
#include "hand_case.hpp"
#include "norm_cases.hpp"
#include "normlab/buffer.hpp"
#include "normlab/kernel.hpp"
#include "normlab/registry.hpp"

namespace {

using namespace normlab;
using norm_cases::registered;
using norm_cases::require_all_pass;

constexpr Op kOps[] = {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm};

using hand_case::DTypes;
constexpr DTypes kDTypes[] = {{DType::f32, DType::f32},
                              {DType::f16, DType::f16},
                              {DType::f16, DType::f32},
                              {DType::bf16, DType::bf16},
                              {DType::bf16, DType::f32}};

const KernelEntry& dispatcher(Op op) {
  return registered((std::string("ch09_") + name_of(op)).c_str());
}

Case make_case(Op op, DTypes d, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(op, rows, cols, d.dtype);
  c.shape.weight_dtype = d.weight_dtype;
  c.input.seed = seed;
  return c;
}

// Both sides of every boundary of choose()'s table (kernels/configs.cpp), in columns, for 16-bit
// rows (8 a chunk) and fp32 rows (4 a chunk): the narrow configurations' 16, 64, 96, 128 and 256
// chunks and the narrow limit of 1024 columns; block1's 1024 chunks, block2's 1024 (many rows)
// and 2048, block4's 2048 (and, for 16-bit LayerNorm, its whole warps from 1152 chunks: 9216
// and 12288 columns, not 9224), block8_256x2 from 1537 (LayerNorm) and 1793 chunks (RMSNorm),
// block8's 3072; then chapter 07's launcher. Odd widths (not whole chunks) take the
// configurations for any alignment.
const std::vector<std::int64_t> k16BitCols{
    1,    7,    128,  129,  136,  512,   520,   576,   768,   776,   1000,  1024,  1025,  4096,
    5000, 8192, 8200, 9216, 9224, 12288, 12296, 14336, 14344, 16384, 16392, 24576, 24584, 40000};
const std::vector<std::int64_t> kFp32Cols{1,    3,    64,   65,   68,    256,   260,
                                          384,  388,  512,  516,  1023,  1024,  1025,
                                          4096, 4100, 8192, 8196, 12288, 12292, 20000};

}  // namespace

TEST_CASE("the dispatcher on both sides of every boundary, every dtype", "[ch09]") {
  std::uint64_t seed = 9000;
  for (Op op : kOps) {
    std::vector<Case> cases;
    for (const DTypes& types : kDTypes) {
      const auto& widths = types.dtype == DType::f32 ? kFp32Cols : k16BitCols;
      for (std::int64_t rows : {3, 64, 65}) {  // few rows, the last few, the first many
        for (std::int64_t cols : widths)
          cases.push_back(make_case(op, types, rows, cols, seed++));
      }
    }
    require_all_pass(dispatcher(op), cases);
  }
}

TEST_CASE("narrow rows: row counts that end inside a block, and rows = 0", "[ch09]") {
  std::uint64_t seed = 9500;
  for (Op op : kOps) {
    std::vector<Case> cases;
    for (const DTypes& types : {kDTypes[0], kDTypes[3], kDTypes[4]}) {
      for (std::int64_t rows : {0, 1, 2, 7, 31, 33, 4097}) {
        for (std::int64_t cols : {1, 33, 100, 576, 1024})
          cases.push_back(make_case(op, types, rows, cols, seed++));
      }
    }
    require_all_pass(dispatcher(op), cases);
  }
}

TEST_CASE("every option: strides, misalignment, in place, (1 + w), parameters, statistics",
          "[ch09]") {
  std::vector<norm_cases::CaseVariant> variants = {
      {"rows 16-byte strided", [](Case& c) { return c.pad = 8, true; }},
      {"odd stride: every row its own alignment", [](Case& c) { return c.pad = 5, true; }},
      {"misaligned by 1", [](Case& c) { return c.misalign = 1, true; }},
      {"misaligned by 3, odd stride", [](Case& c) { return c.misalign = 3, c.pad = 5, true; }},
      {"misaligned by 7", [](Case& c) { return c.misalign = 7, true; }},
      {"in place", [](Case& c) { return c.in_place = true, true; }},
      {"in place, misaligned, strided",
       [](Case& c) { return c.in_place = true, c.misalign = 5, c.pad = 3, true; }},
      {"eps = 1", [](Case& c) { return c.eps = 1.0f, true; }},
      {"rows shifted to mean 100",
       [](Case& c) {
         c.input.distribution = Distribution::uniform;
         c.input.mean = 100.0;
         return true;
       }},
  };
  for (const norm_cases::CaseVariant& v : norm_cases::parameter_variants())
    variants.push_back(v);
  std::uint64_t seed = 9700;
  for (Op op : kOps) {
    for (const norm_cases::CaseVariant& variant : variants) {
      std::vector<Case> cases;
      for (const DTypes& types : kDTypes) {
        for (std::int64_t rows : {5, 67}) {
          // 4096 and 16384: balanced rows (every thread of block4_128x6 holds 4 whole chunks,
          // of block8_256x2 8), whose LayerNorm statistics come from one reduction (block.cu:
          // at 16384 for bf16 rows with bf16 parameters only). 16384 at 5 rows only: a row is a
          // block either way, and with 67 rows too the column is the slowest part of this test.
          for (std::int64_t cols : {9, 576, 1017, 1031, 4096, 4104, 16384, 16385}) {
            const std::uint64_t case_seed = seed++;
            if (cols == 16384 && rows != 5) continue;
            Case c = make_case(op, types, rows, cols, case_seed);
            if (variant.apply(c)) cases.push_back(c);
          }
        }
      }
      if (cases.empty()) continue;  // the variant does not apply to this op
      INFO(variant.name);
      require_all_pass(dispatcher(op), cases);
    }
  }
}

TEST_CASE("each tensor with its own stride and alignment", "[ch09]") {
  // x, residual, y and h each strided and shifted differently (x sets the chunk grid, the
  // others move element by element where their alignment differs), on narrow rows, odd rows
  // for block4_any, and the same strides with every base aligned (the aligned kernels).
  auto dispatcher_call = [](const NormCall& call, cudaStream_t stream) {
    kernels::configured::forward(call, stream);
  };
  std::uint64_t seed = 9800;
  for (Op op : kOps) {
    for (const DTypes& types : kDTypes) {
      for (std::int64_t cols : {1, 13, 576, 1000, 1031, 4099}) {
        for (bool in_place : {false, true}) {
          const hand_case::HandCase shifted{.op = op,
                                            .types = types,
                                            .rows = 37,
                                            .cols = cols,
                                            .x = {.pad = 3, .misalign = 1},
                                            .residual = {.pad = 0, .misalign = 2},
                                            .y = {.pad = 8, .misalign = 0},
                                            .residual_out = {.pad = 1, .misalign = 3},
                                            .weight_misalign = 1,
                                            .residual_in_place = in_place,
                                            .seed = seed++};
          const hand_case::HandCase aligned{.op = op,
                                            .types = types,
                                            .rows = 37,
                                            .cols = cols / 8 * 8 + 8,
                                            .x = {.pad = 8},
                                            .residual = {.pad = 16},
                                            .y = {.pad = 0},
                                            .residual_out = {.pad = 24},
                                            .residual_in_place = in_place,
                                            .seed = seed++};
          for (const hand_case::HandCase& hc : {shifted, aligned}) {
            const hand_case::HandResult result = hand_case::run_by_hand(
                hc, rounding_for(types.dtype), dispatcher_call, "kernels::configured::forward");
            INFO(name_of(op) << " " << name_of(types.dtype) << " weight "
                             << name_of(types.weight_dtype) << " cols " << hc.cols
                             << (in_place ? " in place" : "") << "\n"
                             << result.describe());
            CHECK(result.passed());
          }
        }
      }
    }
  }
}

TEST_CASE("every configuration of the table, run alone, on rows it holds", "[ch09]") {
  struct Shape {
    std::int64_t rows, cols;
  };
  const Shape shapes[] = {{67, 8},   {67, 64},  {67, 576},  {67, 1024}, {9, 2048},
                          {9, 4096}, {9, 8192}, {3, 16384}, {3, 24576}};
  std::uint64_t seed = 9900;
  std::set<std::string> configurations_run;
  for (DType dtype : {DType::f32, DType::bf16}) {
    for (const Shape& shape : shapes) {
      for (const KernelEntry& kernel :
           kernels::configured::sweep_entries(shape.rows, shape.cols, dtype)) {
        std::vector<Case> cases;
        Case c = default_case(kernel.op, shape.rows, shape.cols, dtype);
        c.input.seed = seed++;
        cases.push_back(c);
        c.in_place = true;
        c.weight_plus_one = true;
        c.statistics = true;
        c.pad = 8;
        c.input.seed = seed++;
        cases.push_back(c);
        INFO(kernel.name);
        require_all_pass(kernel, cases);
        configurations_run.insert(kernel.name.substr(kernel.name.find('@') + 1));
      }
    }
  }
  // Every configuration but chapter 07's ("wide") held some shape above.
  for (const kernels::configured::Config& config : kernels::configured::kConfigs) {
    INFO(config.name);
    CHECK((config.kind == kernels::configured::Kind::wide ||
           configurations_run.count(config.name) == 1));
  }
}

TEST_CASE("a forced configuration that cannot hold the row is refused; nothing is written",
          "[ch09]") {
  HostMatrix x(DType::bf16, 4, 576), y(DType::bf16, 4, 576);
  fill_random(x, {});
  const PlacedMatrix x_device(x, 1), y_device(y, 0);  // x misaligned by one element
  NormCall call{
      .op = Op::rmsnorm, .dtype = DType::bf16, .weight_dtype = DType::bf16, .rows = 4, .cols = 576};
  call.x = x_device.data();
  call.x_stride = 576;
  call.y = y_device.data();
  call.y_stride = 576;
  CHECK_THROWS_WITH(kernels::configured::forward(call, nullptr, "narrow32x3"),
                    Catch::Contains("'config'") && Catch::Contains("aligned"));
  CHECK_THROWS_WITH(kernels::configured::forward(call, nullptr, "narrow8x2_any"),
                    Catch::Contains("'config'") && Catch::Contains("holds 16 chunks"));
  CHECK_THROWS_WITH(kernels::configured::forward(call, nullptr, "no_such_config"),
                    Catch::Contains("'config'"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  y_device.download(y);
  CHECK(y.is_poison(0, 0));
  CHECK(y.is_poison(3, 575));
  // The configuration for any alignment that holds the row runs it.
  kernels::configured::forward(call, nullptr, "narrow32x3_any");
  NORMLAB_CHECK(cudaDeviceSynchronize());
  y_device.download(y);
  CHECK_FALSE(y.is_poison(0, 0));
  CHECK_FALSE(y.is_poison(3, 575));
}
