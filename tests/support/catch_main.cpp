// SPDX-License-Identifier: Apache-2.0
// main() of every normlab Catch2 test program. Built twice: as normlab_catch_cpu_main, and
// with NORMLAB_GPU_TESTS as normlab_catch_gpu_main, which first checks for a GPU. Without
// one, a GPU test program prints why and exits with NORMLAB_SKIP_CODE, which ctest reports
// as skipped, unless the build requires a GPU (NORMLAB_REQUIRE_GPU), in which case it fails.
// Built a third time, with NORMLAB_MULTI_GPU_TESTS too, as normlab_catch_multigpu_main: fewer than
// 2 GPUs is then a skip, or a failure where the build requires them (NORMLAB_REQUIRE_GPUS).
#define NORMLAB_CATCH_MAIN
#include "normlab_catch.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#ifdef NORMLAB_GPU_TESTS
#include "normlab/device.hpp"
#endif
#ifdef NORMLAB_MULTI_GPU_TESTS
#include <cuda_runtime.h>
#endif

int main(int argc, char** argv) {
#ifdef NORMLAB_GPU_TESTS
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    listing = listing || std::strncmp(argv[i], "--list", 6) == 0;
  if (const std::string reason = normlab::gpu_unavailable_reason(); !listing && !reason.empty()) {
    if (NORMLAB_REQUIRE_GPU) {
      std::fprintf(stderr, "FAILED: %s, and this build requires a GPU (NORMLAB_REQUIRE_GPU)\n",
                   reason.c_str());
      return 1;
    }
    std::printf("SKIPPED: %s; GPU tests run where a GPU is visible\n", reason.c_str());
    return NORMLAB_SKIP_CODE;
  }
#endif
#ifdef NORMLAB_MULTI_GPU_TESTS
  int gpus = 0;
  if (!listing && (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 2)) {
    if (NORMLAB_REQUIRE_GPUS) {
      std::fprintf(stderr,
                   "FAILED: %d GPU(s) visible, and this build requires 2 (NORMLAB_REQUIRE_GPUS)\n",
                   gpus);
      return 1;
    }
    std::printf("SKIPPED: %d GPU(s) visible; multi-GPU tests run where 2 or more are\n", gpus);
    return NORMLAB_SKIP_CODE;
  }
#endif
  return Catch::Session().run(argc, argv);
}
