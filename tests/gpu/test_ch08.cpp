// SPDX-License-Identifier: Apache-2.0
// Chapter 08 on the GPU: RMSNorm and LayerNorm backward, both reductions (atomic and
// deterministic), every dtype pairing on ragged shapes (fp32 rows with 16-bit parameters, a dy
// of another dtype and RMSNorm's bias too, each giving the fp32 launch's bits); every option
// (strides, misalignment, in place, (1 + w), no weight, no bias, dresidual, rows = 0); the widths
// where the kernel changes its vectors per thread; the widest rows refused by name; and the
// deterministic kernels' gradients bit-identical over 10 runs. And chapter 10's cluster backward,
// which takes the rows chapter 08 refuses, on the same checks.
#include "normlab_catch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backward.cuh"
#include "grading.hpp"
#include "norm_cases.hpp"
#include "normlab/buffer.hpp"
#include "normlab/host_matrix.hpp"
#include "normlab/kernel.hpp"
#include "normlab/random.hpp"
#include "normlab/registry.hpp"

namespace {

using namespace normlab;
using norm_cases::registered;
using norm_cases::require_all_pass;

struct DTypes {
  DType dtype;
  DType weight_dtype;
};
constexpr DTypes kDTypes[] = {{DType::f32, DType::f32},  {DType::f32, DType::f16},
                              {DType::f32, DType::bf16}, {DType::f16, DType::f16},
                              {DType::f16, DType::f32},  {DType::bf16, DType::bf16},
                              {DType::bf16, DType::f32}};

constexpr Op kOps[] = {Op::rmsnorm_backward, Op::layernorm_backward};

// The chapter's kernels for @p op: the atomic one and the deterministic one (the default).
std::vector<const KernelEntry*> kernels_for(Op op) {
  const std::string base = std::string("ch08_") + name_of(op);
  return {&registered((base + "_atomic").c_str()), &registered(base.c_str())};
}

Case make_case(Op op, DTypes d, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(op, rows, cols, d.dtype);
  c.shape.weight_dtype = d.weight_dtype;
  c.input.seed = seed;
  return c;
}

}  // namespace

TEST_CASE("chapter 08 passes every dtype pairing on ragged shapes", "[ch08]") {
  // cols 4096 / 8192 / 12288 are where a 16-bit row moves from 2 to 4 vectors a thread (past
  // 8192) and an fp32 row from 2 to 4 to 8 (past 4096 and 8192). LayerNorm stops at 8192.
  // Rows on the 16-byte grid of at most 128 chunks take the deterministic reduction's narrow
  // kernel, a warp a row: 64, 256, 576 and 1024 columns give a 16-bit row's lane 1, 1, 3 and 4
  // vectors, an fp32 row's lane 1 and 2 (576 and 1024 fp32 columns take the block kernel).
  for (Op op : kOps) {
    for (const KernelEntry* kernel : kernels_for(op)) {
      std::vector<Case> cases;
      std::uint64_t seed = 1;
      for (const DTypes& d : kDTypes) {
        for (std::int64_t rows : {1, 7, 4097}) {
          for (std::int64_t cols : {1, 31, 64, 256, 576, 1024, 1025, 4096, 8192, 12288}) {
            if (op == Op::layernorm_backward && cols > 8192) continue;  // refused: see below
            cases.push_back(make_case(op, d, rows, cols, seed++));
          }
        }
      }
      require_all_pass(*kernel, cases);
    }
  }
}

TEST_CASE("chapter 08 passes every option", "[ch08]") {
  for (Op op : kOps) {
    for (const KernelEntry* kernel : kernels_for(op)) {
      std::vector<Case> cases;
      std::uint64_t seed = 100;
      for (const DTypes& d : kDTypes) {
        for (std::int64_t rows : {7, 301}) {
          for (std::int64_t cols : {33, 576, 1025, 4096}) {
            const Case plain = make_case(op, d, rows, cols, seed++);
            Case gemma = plain;
            gemma.weight_plus_one = true;
            Case no_parameters = plain;
            no_parameters.shape.weight = false;
            no_parameters.shape.bias = false;
            Case weight_only = plain;
            weight_only.shape.bias = false;
            Case fused = plain;
            fused.residual_gradient = true;
            Case in_place = plain;
            in_place.in_place = true;
            Case strided = plain;  // every row 16-byte aligned, with a gap: the vector path
            strided.pad = 16;
            Case misaligned = plain;  // every row off the 16-byte grid: element by element
            misaligned.pad = 3;
            misaligned.misalign = 1;
            Case everything = misaligned;
            everything.in_place = true;
            everything.residual_gradient = true;
            everything.weight_plus_one = true;
            // A bias (RMSNorm's too: dbias the column sums of dy), and a dy of another dtype
            // (autocast), read exactly: aligned, and misaligned with dresidual.
            Case biased = plain;
            biased.shape.bias = true;
            Case other_dy = biased;
            other_dy.shape.dy_dtype = d.dtype == DType::f32 ? DType::bf16 : DType::f32;
            Case other_dy_misaligned = misaligned;
            other_dy_misaligned.shape.dy_dtype = d.dtype == DType::f16 ? DType::bf16 : DType::f16;
            other_dy_misaligned.residual_gradient = true;
            for (const Case& c :
                 {plain, gemma, no_parameters, weight_only, fused, in_place, strided, misaligned,
                  everything, biased, other_dy, other_dy_misaligned}) {
              cases.push_back(c);
            }
          }
        }
        // rows = 0: nothing to normalise, and the parameter gradients are 0, written.
        cases.push_back(make_case(op, d, 0, 1025, seed++));
      }
      require_all_pass(*kernel, cases);
    }
  }
}

TEST_CASE("chapter 08 refuses rows too wide for its registers, by name", "[ch08]") {
  for (Op op : kOps) {
    const std::int64_t widest = op == Op::rmsnorm_backward ? 12288 : 8192;
    for (const KernelEntry* kernel : kernels_for(op)) {
      CHECK(kernel->supports(make_case(op, {DType::bf16, DType::bf16}, 7, widest, 1)));
      const Case wide = make_case(op, {DType::bf16, DType::bf16}, 7, widest + 1, 1);
      CHECK(kernel->refusal(wide) == "rows wider than " + std::to_string(widest));
      CHECK_THROWS_AS(verify(*kernel, wide), std::invalid_argument);
    }
  }
}

// @p plain and its variants: (1 + w), no parameters, dresidual, in place, strided, a bias (dbias),
// and with @p misaligned rows off the 16-byte grid (dresidual and in place too).
std::vector<Case> with_options(const Case& plain, bool misaligned) {
  std::vector<Case> cases(7, plain);
  cases[1].weight_plus_one = true;
  cases[2].shape.weight = false;
  cases[2].shape.bias = false;
  cases[3].residual_gradient = true;
  cases[4].in_place = true;
  cases[5].pad = 16;
  cases[6].shape.bias = true;
  if (misaligned) {
    Case off_grid = plain;
    off_grid.pad = 3;
    off_grid.misalign = 1;
    off_grid.residual_gradient = true;
    off_grid.in_place = true;
    cases.push_back(off_grid);
  }
  return cases;
}

// Rows wider than chapter 08's registers hold go to chapter 10's cluster backward
// (kernels/cluster_backward.cu; sm_90): the same function, checked the same way, from just past
// chapter 08's widest rows to the widest a cluster holds, every dtype pairing, and rows off the
// 16-byte grid (element-by-element edges) up to their own limit.
const KernelEntry& cluster_kernel(Op op) {
  return registered((std::string("ch10_") + name_of(op)).c_str());
}

TEST_CASE("chapter 10's cluster backward passes every dtype pairing on wide rows", "[ch10]") {
  for (Op op : kOps) {
    const KernelEntry& kernel = cluster_kernel(op);
    std::vector<Case> cases;
    std::uint64_t seed = 500;
    for (const DTypes& d : kDTypes) {
      const bool sixteen = d.dtype != DType::f32;
      // 12296 and 8200 aligned just past chapter 08; 12289 and 8193 off the grid; then the
      // cluster's shapes: 2 vectors a thread, 4, blocks of 512, 16 blocks (the widest, 512 KiB).
      std::vector<std::int64_t> widths = op == Op::rmsnorm_backward
                                             ? std::vector<std::int64_t>{12296, 12289, 32768}
                                             : std::vector<std::int64_t>{8200, 8193, 32768};
      for (std::int64_t cols : {65536, 131072})
        widths.push_back(cols);
      if (sixteen) widths.push_back(262144);
      for (std::int64_t cols : widths) {
        for (std::int64_t rows : {1, 5, 133}) {
          if (rows == 133 && cols > 32768) continue;  // the float64 reference's time
          cases.push_back(make_case(op, d, rows, cols, seed++));
        }
      }
      // Off the grid up to its limit (8192 chunks): 16-bit 65529, fp32 32761.
      cases.push_back(make_case(op, d, 3, sixteen ? 65529 : 32761, seed++));
    }
    require_all_pass(kernel, cases);
  }
}

TEST_CASE("chapter 10's cluster backward passes every option", "[ch10]") {
  for (Op op : kOps) {
    const KernelEntry& kernel = cluster_kernel(op);
    std::vector<Case> cases;
    std::uint64_t seed = 700;
    for (const DTypes& d : {DTypes{DType::bf16, DType::bf16}, DTypes{DType::f32, DType::bf16},
                            DTypes{DType::f16, DType::f32}}) {
      for (std::int64_t cols : {20000, 30000}) {  // fp32 30000: 7500 chunks, held off the grid too
        for (const Case& c : with_options(make_case(op, d, 37, cols, seed++), true))
          cases.push_back(c);
      }
      cases.push_back(make_case(op, d, 0, 20000, seed++));  // zero gradients, written
    }
    require_all_pass(kernel, cases);
  }
}

TEST_CASE("chapter 10's cluster backward reads a dy of another dtype exactly", "[ch10]") {
  // dy widened to fp32 (with 16-bit x, x, dresidual and dx too), as chapter 08 widens it, and the
  // fp32 row over a cluster: ragged rows on the 16-byte grid, off it (where a cluster holds 32768
  // fp32 columns), and the widest row a 16-bit x takes so.
  struct OtherDy {
    DTypes d;
    DType dy;
    std::int64_t rows, cols;
  };
  for (Op op : kOps) {
    const KernelEntry& kernel = cluster_kernel(op);
    std::vector<Case> cases;
    std::uint64_t seed = 900;
    for (const OtherDy& o : {OtherDy{{DType::f32, DType::f32}, DType::bf16, 3, 40000},
                             OtherDy{{DType::bf16, DType::bf16}, DType::f32, 2, 70000},
                             OtherDy{{DType::bf16, DType::f32}, DType::f32, 3, 30001},
                             OtherDy{{DType::f32, DType::bf16}, DType::f16, 5, 20001},
                             OtherDy{{DType::f16, DType::f16}, DType::bf16, 2, 131072}}) {
      Case plain = make_case(op, o.d, o.rows, o.cols, seed++);
      plain.shape.dy_dtype = o.dy;
      Case everything = plain;  // a bias (RMSNorm's too), dresidual, (1 + w)
      everything.shape.bias = true;
      everything.residual_gradient = true;
      everything.weight_plus_one = true;
      Case strided = plain;  // rows cols + 16 elements apart
      strided.pad = 16;
      Case head_view = plain;  // x's rows in groups of 2, 64 poisoned elements after each
      head_view.group_rows = 2;
      head_view.group_gap = 64;
      for (const Case& c : {plain, everything, strided, head_view})
        cases.push_back(c);
      if (o.cols % 4 != 0) {  // already off the grid: misaligned too
        Case misaligned = everything;
        misaligned.pad = 3;
        misaligned.misalign = 1;
        cases.push_back(misaligned);
      }
    }
    require_all_pass(kernel, cases);
  }
}

TEST_CASE("chapter 10's cluster backward refuses what it cannot hold, by name", "[ch10]") {
  for (Op op : kOps) {
    const KernelEntry& kernel = cluster_kernel(op);
    const DTypes bf16{DType::bf16, DType::bf16};
    CHECK(kernel.supports(make_case(op, bf16, 2, 262144, 1)));
    CHECK(kernel.refusal(make_case(op, bf16, 2, 262152, 1)) == "rows wider than 524288 bytes");
    // A dy of another dtype runs the row widened to fp32: 131072 columns, whatever x's dtype.
    Case other_dy = make_case(op, bf16, 2, 131072, 1);
    other_dy.shape.dy_dtype = DType::f32;
    CHECK(kernel.supports(other_dy));
    other_dy.shape.cols = 131080;
    CHECK(kernel.refusal(other_dy) ==
          "dy_dtype fp32 with bf16 x runs the row widened to fp32: rows wider than 131072 "
          "columns (524288 bytes)");
    // Off the 16-byte grid a row holds at most 8192 chunks (131072 bytes): the entry declares it,
    // so the registry refuses the row before any launch, and a widened row past 32768 columns.
    Case off_grid = make_case(op, bf16, 2, 65545, 1);
    CHECK(kernel.refusal(off_grid) == "rows off the 16-byte grid wider than 131072 bytes");
    CHECK_THROWS_WITH(verify(kernel, off_grid), Catch::Contains("off the 16-byte grid"));
    Case off_grid_widened = make_case(op, bf16, 2, 32769, 1);
    off_grid_widened.shape.dy_dtype = DType::f32;
    CHECK(kernel.refusal(off_grid_widened) ==
          "dy_dtype fp32 with bf16 x runs the row widened to fp32: rows off the 16-byte grid "
          "wider than 32768 columns (131072 bytes)");
  }
}

// The tuner's configurations of the cluster backward (kernels::backward::kClusterBackwardShapes):
// each forced, on rows that give its cluster 1, 2, 3 (one chunk into the third) and 16 blocks,
// a row of a few chunks in one block, and for 256x2 rows off the 16-byte grid; and 1000 rows on
// 2 blocks, so that each cluster walks several rows (the staged configurations' stages reused).
const KernelEntry& cluster_config(Op op, const char* config) {
  return registered((std::string("ch10_") + name_of(op) + "_cluster@" + config).c_str());
}

TEST_CASE("chapter 10's cluster backward configurations: clusters of 1 to 16 blocks", "[ch10]") {
  for (Op op : kOps) {
    for (const auto& config : kernels::backward::kClusterBackwardShapes) {
      const std::int64_t chunks_a_block = std::int64_t{config.shape.threads} * config.shape.vectors;
      std::vector<Case> cases;
      std::uint64_t seed = 1100;
      for (const DTypes& d : {DTypes{DType::bf16, DType::bf16}, DTypes{DType::f32, DType::f32},
                              DTypes{DType::f16, DType::f32}, DTypes{DType::f32, DType::bf16}}) {
        const std::int64_t width = 16 / static_cast<std::int64_t>(size_of(d.dtype));
        std::vector<std::int64_t> widths{24, chunks_a_block * width, 2 * chunks_a_block * width,
                                         (2 * chunks_a_block + 1) * width,
                                         16 * chunks_a_block * width};
        if (kernels::backward::takes_rows_off_grid(config.shape))
          widths.push_back((2 * chunks_a_block + 1) * width - 3);
        for (std::int64_t cols : widths) {
          for (std::int64_t rows : {1, 7, 133}) {
            if (rows == 133 && cols > 32768) continue;  // the float64 reference's time
            cases.push_back(make_case(op, d, rows, cols, seed++));
          }
        }
      }
      cases.push_back(
          make_case(op, {DType::bf16, DType::bf16}, 1000, 2 * chunks_a_block * 8, seed++));
      INFO(config.name);
      require_all_pass(cluster_config(op, config.name), cases);
    }
  }
}

TEST_CASE("chapter 10's cluster backward configurations pass every option", "[ch10]") {
  for (Op op : kOps) {
    for (const auto& config : kernels::backward::kClusterBackwardShapes) {
      const KernelEntry& kernel = cluster_config(op, config.name);
      std::uint64_t seed = 1300;
      // Three blocks of bf16 rows, one chunk into the third.
      const std::int64_t cols = (2 * config.shape.threads * config.shape.vectors + 1) * 8;
      const Case plain = make_case(op, {DType::bf16, DType::bf16}, 37, cols, seed++);
      // Rows off the 16-byte grid only where the configuration has element-by-element edges.
      std::vector<Case> cases =
          with_options(plain, kernels::backward::takes_rows_off_grid(config.shape));
      // A dy of another dtype: the row widened to fp32, twice the chunks, on three blocks again.
      const std::int64_t half_cols = (config.shape.threads * config.shape.vectors + 1) * 8;
      Case other_dy = make_case(op, {DType::bf16, DType::f32}, 5, half_cols, seed++);
      other_dy.shape.dy_dtype = DType::f32;
      Case head_view = plain;  // x's rows in groups of 3, 64 elements apart
      head_view.group_rows = 3;
      head_view.group_gap = 64;
      cases.push_back(other_dy);
      cases.push_back(head_view);
      cases.push_back(make_case(op, {DType::bf16, DType::bf16}, 0, cols, seed++));
      INFO(config.name);
      require_all_pass(kernel, cases);
    }
  }
}

namespace {

// The bytes of dx, dweight and dbias after one run of @p kernel on fixed random inputs.
struct Bytes {
  std::vector<unsigned char> dx, dweight, dbias;
  bool operator==(const Bytes&) const = default;
};

// @p values drawn rounded to @p drawn, stored in @p stored (wider or the same: exactly).
HostMatrix drawn_as(DType stored, DType drawn, std::int64_t rows, std::int64_t cols,
                    const InputSpec& spec) {
  HostMatrix values(drawn, rows, cols), out(stored, rows, cols);
  fill_random(values, spec);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c)
      out.set(r, c, values.at(r, c));
  }
  return out;
}

// A problem with a bias (dbias asked for, RMSNorm's too), dy stored in @p dy_dtype, and dy and
// the weight drawn in @p drawn (by default their own dtypes); with @p dy_in_first_row_only, dy
// is 0 past the first row (whose values are those a problem of one row draws).
class Problem {
 public:
  Problem(Op op, DTypes d, std::int64_t rows, std::int64_t cols,
          std::optional<DType> dy_dtype = std::nullopt, std::optional<DType> drawn = std::nullopt,
          bool dy_in_first_row_only = false)
      : op_(op), d_(d), dy_dtype_(dy_dtype.value_or(d.dtype)), rows_(rows), cols_(cols) {
    HostMatrix x(d.dtype, rows, cols);
    fill_random(x, {.seed = 7});
    HostMatrix dy = drawn_as(dy_dtype_, drawn.value_or(dy_dtype_), rows, cols, {.seed = 8});
    for (std::int64_t r = 1; dy_in_first_row_only && r < rows; ++r) {
      for (std::int64_t c = 0; c < cols; ++c)
        dy.set(r, c, 0.0);
    }
    const HostMatrix w =
        drawn_as(d.weight_dtype, drawn.value_or(d.weight_dtype), 1, cols,
                 {.distribution = Distribution::uniform, .mean = 1.0, .scale = 0.3, .seed = 9});
    x_ = PlacedMatrix(x, 0);
    dy_ = PlacedMatrix(dy, 0);
    w_ = PlacedMatrix(w, 0);
    dx_ = HostMatrix(d.dtype, rows, cols);
    dweight_ = HostMatrix(d.weight_dtype, 1, cols);
    dx_device_ = PlacedMatrix::poisoned_like(dx_, 0);
    dweight_device_ = PlacedMatrix::poisoned_like(dweight_, 0);
    dbias_device_ = PlacedMatrix::poisoned_like(dweight_, 0);
    // Any positive statistics give a well-defined backward; these are the forward's of a
    // unit normal row, roughly.
    std::vector<float> mean(static_cast<std::size_t>(rows), 0.01f),
        rstd(static_cast<std::size_t>(rows), 0.98f);
    mean_ = DeviceBuffer<float>(mean.size());
    rstd_ = DeviceBuffer<float>(rstd.size());
    mean_.upload(mean.data());
    rstd_.upload(rstd.data());
  }

  Bytes run(const KernelEntry& kernel) {
    const Shape shape{.rows = rows_,
                      .cols = cols_,
                      .dtype = d_.dtype,
                      .weight_dtype = d_.weight_dtype,
                      .weight = true,
                      .bias = true,
                      .dy_dtype = dy_dtype_};
    scratch_ = DeviceBuffer<unsigned char>(kernel.scratch_bytes(shape));
    scratch_.poison();
    NormCall call{.op = op_,
                  .dtype = d_.dtype,
                  .weight_dtype = d_.weight_dtype,
                  .dy_dtype = dy_dtype_,
                  .rows = rows_,
                  .cols = cols_};
    call.x = x_.data();
    call.x_stride = cols_;
    call.dy = dy_.data();
    call.dy_stride = cols_;
    call.dx = dx_device_.data();
    call.dx_stride = cols_;
    call.weight = w_.data();
    call.dweight = dweight_device_.data();
    call.dbias = shape.bias ? dbias_device_.data() : nullptr;
    call.saved_mean = mean_.data();
    call.saved_rstd = rstd_.data();
    call.scratch = scratch_.data();
    call.scratch_bytes = scratch_.bytes();
    kernel.launch(call, nullptr);
    NORMLAB_CHECK(cudaDeviceSynchronize());
    Bytes bytes;
    dx_device_.download(dx_);
    bytes.dx.assign(static_cast<const unsigned char*>(dx_.data()),
                    static_cast<const unsigned char*>(dx_.data()) + dx_.bytes());
    dweight_device_.download(dweight_);
    bytes.dweight.assign(static_cast<const unsigned char*>(dweight_.data()),
                         static_cast<const unsigned char*>(dweight_.data()) + dweight_.bytes());
    if (shape.bias) {
      dbias_device_.download(dweight_);
      bytes.dbias.assign(static_cast<const unsigned char*>(dweight_.data()),
                         static_cast<const unsigned char*>(dweight_.data()) + dweight_.bytes());
    }
    return bytes;
  }

  // Whether dx, dweight, dbias and the last run()'s scratch hold nothing but the poison run()
  // put there: what a call refused before anything is launched leaves.
  bool untouched() {
    std::vector<unsigned char> scratch(scratch_.bytes());
    scratch_.download(scratch.data());
    bool poison = std::all_of(scratch.begin(), scratch.end(),
                              [](unsigned char b) { return b == kPoisonByte; });
    auto poisoned = [&](PlacedMatrix& device, HostMatrix& host) {
      device.download(host);
      for (std::int64_t r = 0; r < host.rows(); ++r) {
        for (std::int64_t c = 0; c < host.cols(); ++c)
          poison = poison && host.is_poison(r, c);
      }
    };
    poisoned(dx_device_, dx_);
    poisoned(dweight_device_, dweight_);
    poisoned(dbias_device_, dweight_);
    return poison;
  }

 private:
  Op op_;
  DTypes d_;
  DType dy_dtype_;
  std::int64_t rows_, cols_;
  PlacedMatrix x_, dy_, w_, dx_device_, dweight_device_, dbias_device_;
  HostMatrix dx_, dweight_;
  DeviceBuffer<float> mean_, rstd_;
  DeviceBuffer<unsigned char> scratch_;
};

// @p bytes of @p dtype elements as doubles.
std::vector<double> values_of(DType dtype, const std::vector<unsigned char>& bytes) {
  std::vector<double> values(bytes.size() / size_of(dtype));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = load_as_double(dtype, bytes.data(), i);
  return values;
}

}  // namespace

// Every kernel that may serve a call computes one function: fp32 rows with 16-bit parameters
// give the fp32-parameter launch's dx bits and its parameter gradients rounded once to 16 bits
// (never summed in 16 bits); a 16-bit dy with fp32 rows gives the bits of that dy widened first.
TEST_CASE("16-bit parameters and a dy of another dtype give the fp32 launch's bits", "[ch08]") {
  for (Op op : kOps) {
    const KernelEntry& kernel = *kernels_for(op)[1];
    for (DType sixteen : {DType::f16, DType::bf16}) {
      for (auto [rows, cols] :
           {std::pair<std::int64_t, std::int64_t>{7, 33}, {301, 576}, {301, 1025}, {64, 4096}}) {
        INFO(name_of(op) << " " << name_of(sixteen) << " " << rows << "x" << cols);
        const Bytes narrow =
            Problem(op, {DType::f32, sixteen}, rows, cols, std::nullopt, sixteen).run(kernel);
        const Bytes wide =
            Problem(op, {DType::f32, DType::f32}, rows, cols, std::nullopt, sixteen).run(kernel);
        CHECK(narrow.dx == wide.dx);
        for (auto [got, fp32] :
             {std::pair{&narrow.dweight, &wide.dweight}, std::pair{&narrow.dbias, &wide.dbias}}) {
          std::vector<double> rounded = values_of(DType::f32, *fp32);
          for (double& v : rounded)
            v = round_to(sixteen, v);
          CHECK(values_of(sixteen, *got) == rounded);
        }
        const Bytes dy_narrow =
            Problem(op, {DType::f32, DType::f32}, rows, cols, sixteen, sixteen).run(kernel);
        const Bytes dy_widened =
            Problem(op, {DType::f32, DType::f32}, rows, cols, DType::f32, sixteen).run(kernel);
        CHECK(dy_narrow == dy_widened);
      }
    }
  }
}

// The cluster backward's dy of another dtype is read exactly: the bits of the same values given in
// fp32. Off the 16-byte grid a cluster holds 65536 bf16 columns but 32768 fp32 ones: a bf16 row of
// 40001 columns runs with dy in its dtype and is refused, naming dy_dtype, with an fp32 dy,
// before anything is launched.
TEST_CASE("chapter 10's cluster backward widens a dy of another dtype, or refuses it unlaunched",
          "[ch10]") {
  for (Op op : kOps) {
    const KernelEntry& kernel = cluster_kernel(op);
    for (DType sixteen : {DType::f16, DType::bf16}) {
      INFO(name_of(op) << " " << name_of(sixteen) << " dy");
      const Bytes narrow =
          Problem(op, {DType::f32, DType::f32}, 3, 40000, sixteen, sixteen).run(kernel);
      const Bytes wide =
          Problem(op, {DType::f32, DType::f32}, 3, 40000, DType::f32, sixteen).run(kernel);
      CHECK(narrow == wide);
    }
    const DTypes bf16{DType::bf16, DType::bf16};
    CHECK_NOTHROW(Problem(op, bf16, 2, 40001).run(kernel));
    Problem widened(op, bf16, 2, 40001, DType::f32);
    CHECK_THROWS_WITH(widened.run(kernel),
                      Catch::Contains("'dy_dtype'") && Catch::Contains("at most 32768 columns"));
    NORMLAB_CHECK(cudaDeviceSynchronize());
    CHECK(widened.untouched());
  }
}

// A call of one row is one launch: its block writes the gradients, with no partial row and no
// column sums. They must be what the two launches give where there are partial rows: the same
// row followed by one whose dy is 0 (its partial row adds nothing) gives the same dx bits and
// the same parameter gradients (equal values: a sum may turn -0 into +0).
TEST_CASE("one row's gradients are those of summed partial rows", "[ch08]") {
  for (Op op : kOps) {
    for (const KernelEntry* kernel : kernels_for(op)) {
      for (DTypes d : {DTypes{DType::bf16, DType::bf16}, DTypes{DType::bf16, DType::f32},
                       DTypes{DType::f16, DType::f16}, DTypes{DType::f32, DType::f32}}) {
        for (std::int64_t cols : {33, 576, 1025, 4096, 8192}) {
          INFO(kernel->name << " " << name_of(d.dtype) << " " << name_of(d.weight_dtype) << " "
                            << cols);
          const Bytes one = Problem(op, d, 1, cols).run(*kernel);
          const Bytes two = Problem(op, d, 2, cols, std::nullopt, std::nullopt, true).run(*kernel);
          REQUIRE(two.dx.size() == 2 * one.dx.size());
          CHECK(std::equal(one.dx.begin(), one.dx.end(), two.dx.begin()));
          CHECK(values_of(d.weight_dtype, one.dweight) == values_of(d.weight_dtype, two.dweight));
          CHECK(values_of(d.weight_dtype, one.dbias) == values_of(d.weight_dtype, two.dbias));
        }
      }
    }
  }
}

TEST_CASE("chapter 08's default kernels give the same bits on every run", "[ch08][determinism]") {
  // Many rows per block, so the persistent grid's partial rows really are sums of many rows.
  // The same problems through the atomic kernels show that the comparison can fail: on
  // 16384 x 4096, 16384 blocks add into each column in the order they finish, and at least one
  // of 9 reruns differs from the first (asserted there; reported on the other shapes).
  struct Shape2 {
    DTypes d;
    std::int64_t rows, cols;
  };
  for (Op op : kOps) {
    for (const Shape2& s : {Shape2{{DType::bf16, DType::bf16}, 16384, 4096},
                            Shape2{{DType::bf16, DType::f32}, 8192, 576},
                            Shape2{{DType::f32, DType::f32}, 2048, 8192}}) {
      Problem problem(op, s.d, s.rows, s.cols);
      const KernelEntry& deterministic = *kernels_for(op)[1];
      REQUIRE(deterministic.default_for_op);
      const Bytes first = problem.run(deterministic);
      int same = 0;
      for (int run = 1; run < 10; ++run)
        same += problem.run(deterministic) == first ? 1 : 0;
      INFO(deterministic.name << " " << name_of(s.d.dtype) << " " << s.rows << "x" << s.cols);
      CHECK(same == 9);

      const KernelEntry& atomic = *kernels_for(op)[0];
      const Bytes atomic_first = problem.run(atomic);
      int atomic_same = 0;
      for (int run = 1; run < 10; ++run)
        atomic_same += problem.run(atomic) == atomic_first ? 1 : 0;
      std::cout << atomic.name << " " << name_of(s.d.dtype) << " " << s.rows << "x" << s.cols
                << ": " << atomic_same << " of 9 reruns bit-identical to the first\n";
      if (s.rows == 16384) CHECK(atomic_same < 9);
    }
  }
}

TEST_CASE("chapter 10's cluster backward gives the same bits on every run", "[ch10][determinism]") {
  struct Shape2 {
    Op op;
    DTypes d;
    std::int64_t rows, cols;
    std::optional<DType> dy_dtype = std::nullopt;  // another dtype: widened first
  };
  for (const Shape2& s :
       {Shape2{Op::layernorm_backward, {DType::bf16, DType::bf16}, 1024, 16384},
        Shape2{Op::rmsnorm_backward, {DType::bf16, DType::bf16}, 512, 32768},
        Shape2{Op::layernorm_backward, {DType::bf16, DType::f32}, 256, 65536},
        Shape2{Op::rmsnorm_backward, {DType::f32, DType::f32}, 64, 131072},
        Shape2{Op::rmsnorm_backward, {DType::f32, DType::f32}, 64, 65536, DType::bf16},
        Shape2{Op::layernorm_backward, {DType::bf16, DType::bf16}, 96, 70000, DType::f32}}) {
    const KernelEntry& kernel = cluster_kernel(s.op);
    Problem problem(s.op, s.d, s.rows, s.cols, s.dy_dtype);
    const Bytes first = problem.run(kernel);
    int same = 0;
    for (int run = 1; run < 10; ++run)
      same += problem.run(kernel) == first ? 1 : 0;
    INFO(kernel.name << " " << name_of(s.d.dtype) << " " << s.rows << "x" << s.cols << " dy "
                     << name_of(s.dy_dtype.value_or(s.d.dtype)));
    CHECK(same == 9);
  }
}

TEST_CASE("every cluster backward configuration gives the same bits on every run",
          "[ch10][determinism]") {
  for (Op op : kOps) {
    for (const auto& config : kernels::backward::kClusterBackwardShapes) {
      const KernelEntry& kernel = cluster_config(op, config.name);
      Problem problem(op, {DType::bf16, DType::bf16}, 1024, 16384);
      const Bytes first = problem.run(kernel);
      int same = 0;
      for (int run = 1; run < 10; ++run)
        same += problem.run(kernel) == first ? 1 : 0;
      INFO(kernel.name);
      CHECK(same == 9);
    }
  }
}

TEST_CASE("a cluster backward configuration refuses by name what it was not compiled for",
          "[ch10]") {
  for (Op op : kOps) {
    // The launcher's own refusals, past capabilities loosened to let the call through.
    KernelEntry loose = cluster_config(op, "512x4");
    loose.can.alignment_bytes = 0;
    loose.can.whole_chunks_only = false;
    loose.can.max_row_bytes = 0;
    Case off_grid = make_case(op, {DType::bf16, DType::bf16}, 3, 4101, 1);
    CHECK_THROWS_WITH(verify(loose, off_grid),
                      Catch::Contains("shape") && Catch::Contains("512x4 keeps 4 chunks"));
    Case wide = make_case(op, {DType::bf16, DType::bf16}, 2, 262152, 1);
    CHECK_THROWS_WITH(verify(loose, wide),
                      Catch::Contains("cols") && Catch::Contains("16 blocks of 512x4 hold"));
    KernelEntry staged = cluster_config(op, "256x2s2");
    staged.can.alignment_bytes = 0;
    staged.can.whole_chunks_only = false;
    CHECK_THROWS_WITH(
        verify(staged, off_grid),
        Catch::Contains("shape") && Catch::Contains("256x2s2 copies whole 16-byte chunks"));
    KernelEntry capped = cluster_config(op, "256x2sm3");
    capped.can.alignment_bytes = 0;
    capped.can.whole_chunks_only = false;
    CHECK_THROWS_WITH(verify(capped, off_grid),
                      Catch::Contains("shape") && Catch::Contains("256x2sm3 has 80 registers"));
    Problem problem(op, {DType::bf16, DType::bf16}, 3, 4101);
    CHECK_THROWS(problem.run(loose));
    CHECK_THROWS(problem.run(staged));
    CHECK_THROWS(problem.run(capped));
    CHECK(problem.untouched());
  }
}
