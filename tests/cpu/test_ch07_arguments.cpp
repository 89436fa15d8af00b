// SPDX-License-Identifier: Apache-2.0
// Chapter 07's launcher without a GPU: every argument that cannot work is refused by name
// before anything touches the device (here a launch would fail with a CUDA error instead), and
// rows = 0 returns without a launch.
#include "normlab_catch.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "general.cuh"
#include "general_forward.hpp"
#include "normlab/kernel.hpp"

namespace {

using normlab::DType;
using normlab::NormCall;
using normlab::Op;

// A call that would be valid on a GPU: 4 x 64 bf16, 8-byte aligned fake device pointers.
NormCall valid_call(Op op) {
  auto fake = [](std::uintptr_t address) { return reinterpret_cast<void*>(address); };
  NormCall call{.op = op, .dtype = DType::bf16, .weight_dtype = DType::bf16, .rows = 4, .cols = 64};
  call.x = fake(0x10000);
  call.x_stride = 64;
  call.y = fake(0x20000);
  call.y_stride = 64;
  call.residual = fake(0x30000);
  call.residual_stride = 64;
  call.residual_out = fake(0x40000);
  call.residual_out_stride = 64;
  return call;
}

void require_refused(const NormCall& call, const char* argument) {
  CHECK_THROWS_AS(normlab::kernels::forward(call, nullptr), std::invalid_argument);
  CHECK_THROWS_WITH(normlab::kernels::forward(call, nullptr),
                    Catch::Contains(std::string("'") + argument + "'"));
}

}  // namespace

TEST_CASE("chapter 07 refuses arguments that cannot work, by name", "[ch07]") {
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    INFO(normlab::name_of(op));
    NormCall call = valid_call(op);
    call.x = nullptr;
    require_refused(call, "x");
    call = valid_call(op);
    call.y = nullptr;
    require_refused(call, "y");
    call = valid_call(op);
    call.cols = 0;
    require_refused(call, "cols");
    call.cols = -5;
    require_refused(call, "cols");
    call = valid_call(op);
    call.rows = -1;
    require_refused(call, "rows");
    call = valid_call(op);
    call.x_stride = 63;
    require_refused(call, "x_stride");
    call = valid_call(op);
    call.y_stride = 10;
    require_refused(call, "y_stride");
    call = valid_call(op);
    call.eps = -1e-6f;
    require_refused(call, "eps");
    call.eps = std::numeric_limits<float>::quiet_NaN();
    require_refused(call, "eps");
    call = valid_call(op);
    call.dtype = DType::f32;  // bf16 weights with fp32 inputs: a pairing, but half a bf16 off
    call.weight = reinterpret_cast<void*>(0x30001);
    require_refused(call, "weight");
    call = valid_call(op);
    call.dtype = DType::f16;  // fp16 inputs with bf16 weights
    require_refused(call, "weight_dtype");
    call = valid_call(op);
    call.x = reinterpret_cast<void*>(0x10001);  // not even element-aligned
    require_refused(call, "x");
    call = valid_call(op);
    call.weight = reinterpret_cast<void*>(0x50001);
    require_refused(call, "weight");
  }
  for (Op op : {Op::add_rmsnorm, Op::add_layernorm}) {
    NormCall call = valid_call(op);
    call.residual = nullptr;
    require_refused(call, "residual");
    call = valid_call(op);
    call.residual_out = nullptr;
    require_refused(call, "residual_out");
    call = valid_call(op);
    call.residual_stride = 1;
    require_refused(call, "residual_stride");
    call = valid_call(op);
    call.residual_out_stride = 32;
    require_refused(call, "residual_out_stride");
  }
  NormCall call = valid_call(Op::copy);
  require_refused(call, "op");
}

TEST_CASE("chapter 07 with rows = 0 launches nothing, even with null tensors", "[ch07]") {
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
      NormCall call{.op = op, .dtype = dtype, .weight_dtype = dtype, .rows = 0, .cols = 4096};
      call.x_stride = call.y_stride = call.residual_stride = call.residual_out_stride = 4096;
      CHECK_NOTHROW(normlab::kernels::forward(call, nullptr));
    }
  }
}

TEST_CASE("chapter 07 refuses two-level rows it cannot take, by name", "[ch07][head_views]") {
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    INFO(normlab::name_of(op));
    NormCall call = valid_call(op);
    call.x_group_rows = 2;
    call.x_group_stride = 256;
    if (normlab::is_add(op)) {
      require_refused(call, "x_group_rows");  // add + norm reads x one stride a row
      continue;
    }
    call.y = const_cast<void*>(call.x);  // y cannot lie over rows in groups
    require_refused(call, "y");
    call = valid_call(op);
    call.x_group_rows = 2;
    call.x_group_stride = 63;
    require_refused(call, "x_group_stride");
    call.x_group_stride = std::int64_t{1} << 31;  // Tensors keeps it in 32 bits
    require_refused(call, "x_group_stride");
    call.x_group_rows = 4;
    call.x_group_stride = 256;
    call.x_stride = std::int64_t{1} << 62;  // a group's fourth row past 2^63 elements
    require_refused(call, "x_group_stride");
    call.x_stride = 64;
    call.x_group_rows = -3;
    require_refused(call, "x_group_rows");
    call = valid_call(op);
    call.rows = std::int64_t{1} << 32;
    call.x_group_rows = 7;
    call.x_group_stride = 1024;
    require_refused(call, "x_group_rows");  // the kernels find a row's group in 32 bits
  }
}

TEST_CASE("row_offset: row r % G of group r / G, one level for G of 0 or 1", "[ch07][head_views]") {
  using normlab::kernels::row_offset;
  CHECK(row_offset(5, 64, 0, 999) == 320);
  CHECK(row_offset(5, 64, 1, 999) == 320);
  // q = qkv[:, :32, :] of a [tokens, 48, 128] buffer: heads 128 apart, tokens 6144 apart.
  CHECK(row_offset(0, 128, 32, 6144) == 0);
  CHECK(row_offset(31, 128, 32, 6144) == 31 * 128);
  CHECK(row_offset(32, 128, 32, 6144) == 6144);
  CHECK(row_offset(8192 * 32 - 1, 128, 32, 6144) == 8191 * 6144 + 31 * 128);
  // The largest row two levels take, its offset past 2^32 elements.
  const std::int64_t last = (std::int64_t{1} << 32) - 1;
  CHECK(row_offset(last, 3, 7, 100) == last / 7 * 100 + last % 7 * 3);
  // The head-view kernels' two levels without the one-level branch: the same offsets for G >= 2.
  using normlab::kernels::grouped_row_offset;
  CHECK(grouped_row_offset(8192 * 32 - 1, 128, 32, 6144) ==
        row_offset(8192 * 32 - 1, 128, 32, 6144));
  CHECK(grouped_row_offset(last, 3, 7, 100) == row_offset(last, 3, 7, 100));
  CHECK(grouped_row_offset(5, 64, 2, 999) == 2 * 999 + 64);
}
