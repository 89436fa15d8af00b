// SPDX-License-Identifier: Apache-2.0
// Chapter 08's launchers without a GPU: every argument that cannot work is refused by name
// before anything touches the device (here a launch would fail with a CUDA error instead).
#include "normlab_catch.hpp"

#include <cstdint>
#include <string>

#include "normlab/kernel.hpp"
#include "normlab/registry.hpp"

namespace {

using normlab::DType;
using normlab::NormCall;
using normlab::Op;

// A call that would be valid on a GPU: 4 x 64 bf16 with a weight, fake device pointers.
NormCall valid_call(Op op) {
  auto fake = [](std::uintptr_t address) { return reinterpret_cast<void*>(address); };
  NormCall call{.op = op, .dtype = DType::bf16, .weight_dtype = DType::bf16, .rows = 4, .cols = 64};
  call.x = fake(0x10000);
  call.x_stride = 64;
  call.dy = fake(0x20000);
  call.dy_stride = 64;
  call.dx = fake(0x30000);
  call.dx_stride = 64;
  call.weight = fake(0x40000);
  call.dweight = fake(0x50000);
  call.saved_mean = static_cast<const float*>(fake(0x60000));
  call.saved_rstd = static_cast<const float*>(fake(0x70000));
  call.scratch = fake(0x80000);
  call.scratch_bytes = 2 * 64 * sizeof(float);  // the atomic kernels' one row (two: LayerNorm)
  return call;
}

// Chapter 08's atomic kernel for @p op: its scratch does not depend on the GPU's SM count, so
// every check, the scratch's included, runs here.
const normlab::KernelEntry& atomic_kernel(Op op) {
  return *normlab::find_kernel(std::string("ch08_") + normlab::name_of(op) + "_atomic");
}

void require_refused(Op op, const NormCall& call, const char* argument) {
  const normlab::KernelEntry& kernel = atomic_kernel(op);
  CHECK_THROWS_AS(kernel.launch(call, nullptr), std::invalid_argument);
  CHECK_THROWS_WITH(kernel.launch(call, nullptr),
                    Catch::Contains(std::string("'") + argument + "'"));
}

}  // namespace

TEST_CASE("chapter 08 refuses arguments that cannot work, by name", "[ch08]") {
  for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
    INFO(normlab::name_of(op));
    NormCall call = valid_call(op);
    call.x = nullptr;
    require_refused(op, call, "x");
    call = valid_call(op);
    call.dy = nullptr;
    require_refused(op, call, "dy");
    call = valid_call(op);
    call.dx = nullptr;
    require_refused(op, call, "dx");
    call = valid_call(op);
    call.cols = 0;
    require_refused(op, call, "cols");
    call = valid_call(op);
    call.cols = call.x_stride = call.dy_stride = call.dx_stride =
        op == Op::rmsnorm_backward ? 12289 : 8193;  // one past the widest row in registers
    require_refused(op, call, "cols");
    call = valid_call(op);
    call.dx_stride = 63;
    require_refused(op, call, "dx_stride");
    call = valid_call(op);
    call.x = reinterpret_cast<const void*>(0x10001);  // not aligned to a bf16
    require_refused(op, call, "x");
    call = valid_call(op);
    call.dresidual = reinterpret_cast<const void*>(0x90000);
    call.dresidual_stride = 10;
    require_refused(op, call, "dresidual_stride");
    call = valid_call(op);
    call.dweight = nullptr;  // a weight without its gradient
    require_refused(op, call, "dweight");
    call = valid_call(op);
    call.saved_rstd = nullptr;
    require_refused(op, call, "saved_rstd");
    call = valid_call(op);
    call.scratch_bytes = 4;
    require_refused(op, call, "scratch");
    call = valid_call(op);
    call.weight_dtype = DType::f16;  // fp16 parameters with bf16 activations
    require_refused(op, call, "weight_dtype");
    call = valid_call(op);
    call.op = Op::rmsnorm;
    require_refused(op, call, "op");
  }
  NormCall call = valid_call(Op::layernorm_backward);
  call.saved_mean = nullptr;
  require_refused(Op::layernorm_backward, call, "saved_mean");
}
