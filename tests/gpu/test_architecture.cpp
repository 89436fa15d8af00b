// SPDX-License-Identifier: Apache-2.0
// A kernel that needs a newer GPU than the one present says so and is refused by name, before
// anything is launched; on a GPU new enough it runs. Shown on a registered kernel whose
// declared minimum is set just above and just at this GPU's compute capability.
#include "normlab_catch.hpp"

#include <stdexcept>
#include <string>

#include "normlab/device.hpp"
#include "normlab/kernel.hpp"
#include "normlab/registry.hpp"
#include "normlab/runner.hpp"

TEST_CASE("a kernel declaring a newer architecture is refused with the reason", "[architecture]") {
  const normlab::KernelEntry* registered = normlab::find_kernel("ch04_rmsnorm_fused_float4");
  REQUIRE(registered != nullptr);
  const normlab::Case c = normlab::default_case(normlab::Op::rmsnorm, 7, 1028);
  const int gpu = normlab::compute_capability();
  normlab::KernelEntry kernel = *registered;

  kernel.can.min_compute_capability = gpu + 1;
  const std::string reason = kernel.refusal(c);
  INFO(reason);
  CHECK(reason.find("needs sm_" + std::to_string(gpu + 1) + " or newer") != std::string::npos);
  CHECK(reason.find("this GPU is sm_" + std::to_string(gpu)) != std::string::npos);
  CHECK_THROWS_WITH(normlab::verify(kernel, c), Catch::Contains("needs sm_"));

  kernel.can.min_compute_capability = gpu;
  CHECK(kernel.refusal(c).empty());
  CHECK(normlab::verify(kernel, c).passed());
}
