// The registry is the one list of kernels: every chapter is in it, every entry is usable.
#include "normlab_catch.hpp"

#include <filesystem>
#include <set>
#include <string>

#include "normlab/kernel.hpp"
#include "registry.hpp"

TEST_CASE("every entry has a unique name, a launcher, dtypes and a positive bytes model",
          "[registry]") {
  std::set<std::string> names;
  for (const normlab::KernelEntry& kernel : normlab::kernel_registry()) {
    INFO(kernel.name);
    CHECK(names.insert(kernel.name).second);
    CHECK(kernel.launch);
    CHECK_FALSE(kernel.can.dtypes.empty());
    CHECK_FALSE(kernel.summary.empty());
    const normlab::Shape shape{.rows = 4,
                               .cols = 64,
                               .dtype = kernel.can.dtypes.front(),
                               .weight_dtype = kernel.can.dtypes.front(),
                               .weight = true,
                               .bias = true};
    CHECK(normlab::bytes_moved(kernel.op, shape) > 0.0);
    const std::string prefix =
        "ch" + std::string(kernel.chapter < 10 ? "0" : "") + std::to_string(kernel.chapter) + "_";
    CHECK(kernel.name.rfind(prefix, 0) == 0);
  }
}

TEST_CASE("every chapter directory has entries in the registry, in chapter order", "[registry]") {
  std::set<int> registered;
  int previous = -1;
  for (const normlab::KernelEntry& kernel : normlab::kernel_registry()) {
    CHECK(kernel.chapter >= previous);
    previous = kernel.chapter;
    registered.insert(kernel.chapter);
  }
  for (const auto& dir : std::filesystem::directory_iterator(NORMLAB_SOURCE_DIR "/chapters")) {
    if (!dir.is_directory()) continue;
    const int chapter = std::stoi(dir.path().filename().string().substr(0, 2));
    INFO("chapter directory " << dir.path().filename());
    CHECK(registered.count(chapter) == 1);
  }
}

TEST_CASE("the eager baseline is registered", "[registry]") {
  int baselines = 0;
  for (const normlab::KernelEntry& kernel : normlab::kernel_registry())
    baselines += kernel.baseline;
  CHECK(baselines >= 1);
}
