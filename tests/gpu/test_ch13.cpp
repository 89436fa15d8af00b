// SPDX-License-Identifier: Apache-2.0
// Chapter 13 on the GPU: the configuration space's verdict is the launcher's. At rows on both
// sides of several configurations' capacities, on and off the 16-byte grid, in bf16 and fp32,
// for every op, each configuration the space keeps runs forced and matches the float64
// reference, and each one it prunes is refused by the launcher, by name, before it runs.
#include "normlab_catch.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "configs.hpp"
#include "configured_entries.hpp"
#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"
#include "space.hpp"
#include "typed_call.hpp"

namespace {

using namespace normlab;
namespace configured = kernels::configured;

// An entry that forces configuration @p name and declares every tensor, so that only the
// launcher's own refusal (configure()) can stop it.
KernelEntry forced(Op op, const char* name) {
  return {.name = std::string("forced@") + name,
          .chapter = 13,
          .summary = "one configuration, forced",
          .op = op,
          .can = kernels::every_tensor(),
          .launch = [name](const NormCall& call, cudaStream_t stream) {
            configured::forward(call, stream, name);
          }};
}

}  // namespace

TEST_CASE("kept configurations run and match float64; pruned ones are refused", "[ch13]") {
  // bf16 (8 a chunk) and fp32 (4 a chunk) widths at and one chunk past narrow8x2's 16 chunks,
  // narrow16x5's 80 and block1's 1024, and odd widths that leave rows off the grid.
  const struct {
    DType dtype;
    std::int64_t cols;
  } shapes[] = {{DType::bf16, 128}, {DType::bf16, 136},  {DType::bf16, 640},  {DType::bf16, 648},
                {DType::bf16, 127}, {DType::bf16, 8192}, {DType::bf16, 8200}, {DType::f32, 64},
                {DType::f32, 68},   {DType::f32, 63},    {DType::f32, 4096}};
  std::uint64_t seed = 13000;
  int kept = 0;
  int pruned = 0;
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    for (const auto& shape : shapes) {
      const std::int64_t rows = 37;
      for (const ch13::Place& place :
           ch13::space_at(ch13::contiguous_problem(op, rows, shape.cols, shape.dtype))) {
        const configured::Config& config = configured::kConfigs[place.config];
        if (config.kind == configured::Kind::wide) continue;  // chapter 07's launcher: any row
        Case c = default_case(op, rows, shape.cols, shape.dtype);
        c.input.seed = seed++;
        INFO(c.describe() << ", " << config.name);
        if (place.pruned_why.empty()) {
          ++kept;
          CHECK(verify(forced(op, config.name), c).passed());
        } else {
          ++pruned;
          CHECK_THROWS_WITH(verify(forced(op, config.name), c), Catch::Contains(config.name));
        }
      }
    }
  }
  CHECK(kept > 100);
  CHECK(pruned > 100);
}
