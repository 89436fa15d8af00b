// SPDX-License-Identifier: Apache-2.0
// The registry is the one list of kernels: every chapter is in it, every entry is usable.
#include "normlab_catch.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "normlab/kernel.hpp"
#include "normlab/registry.hpp"

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
    // A chapter without entries.cpp (11: norm -> linear) has no kernels of the registry's ops.
    if (!dir.is_directory() || !std::filesystem::exists(dir.path() / "entries.cpp")) continue;
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

#include <algorithm>

#include "normlab/runner.hpp"

namespace {

// A case each kernel takes: its first dtype, a width it allows, its op's parameters.
normlab::Case accepted_case(const normlab::KernelEntry& kernel) {
  std::int64_t cols = 64;
  if (kernel.can.max_cols != 0) cols = std::min(cols, kernel.can.max_cols);
  return normlab::default_case(kernel.op, 4, cols, kernel.can.dtypes.front());
}

bool declares(const normlab::KernelEntry& kernel, normlab::DType dtype) {
  return std::find(kernel.can.dtypes.begin(), kernel.can.dtypes.end(), dtype) !=
         kernel.can.dtypes.end();
}

}  // namespace

TEST_CASE("refusal() names each capability a kernel does not declare", "[registry]") {
  using normlab::Case;
  using normlab::DType;
  for (const normlab::KernelEntry& kernel : normlab::kernel_registry()) {
    INFO(kernel.name);
    const Case base = accepted_case(kernel);
    CHECK(kernel.refusal(base).empty());
    // Each variant on its own: accepted exactly when declared, otherwise refused by name.
    auto expect = [&](const Case& c, bool declared, const char* named) {
      const std::string refusal = kernel.refusal(c);
      INFO(c.describe() << " -> '" << refusal << "'");
      if (declared) {
        CHECK(refusal.empty());
      } else {
        CHECK_THAT(refusal, Catch::Contains(named));
      }
    };
    Case gemma = base;
    gemma.weight_plus_one = true;
    expect(gemma, kernel.can.weight_plus_one, "(1 + w)");
    Case in_place = base;
    in_place.in_place = true;
    expect(in_place, kernel.can.in_place, "in place");
    Case strided = base;
    strided.pad = 3;
    const auto element = static_cast<int>(normlab::size_of(base.shape.dtype));
    const bool aligned_any = kernel.can.alignment_bytes <= element;
    expect(strided, kernel.can.strided && aligned_any, kernel.can.strided ? "aligned" : "stride");
    Case misaligned = base;
    misaligned.misalign = 1;
    expect(misaligned, aligned_any, "aligned");
    if (kernel.op != normlab::Op::copy && declares(kernel, DType::bf16)) {
      Case fp32_weights = base;
      fp32_weights.shape.dtype = DType::bf16;
      fp32_weights.shape.weight_dtype = DType::f32;
      expect(fp32_weights, kernel.can.fp32_parameters, "fp32 parameters");
    }
    if (kernel.op != normlab::Op::copy && declares(kernel, DType::f32)) {
      for (DType narrow : {DType::f16, DType::bf16}) {
        Case narrow_weights = base;
        narrow_weights.shape.dtype = DType::f32;
        narrow_weights.shape.weight_dtype = narrow;
        expect(narrow_weights, kernel.can.narrow_parameters, "parameters with fp32 tensors");
      }
    }
    if (!normlab::takes_bias(kernel.op)) {  // RMSNorm's optional bias; copy has none at all
      Case bias = base;
      bias.shape.bias = true;
      expect(bias, kernel.can.rmsnorm_bias && kernel.op != normlab::Op::copy,
             kernel.op == normlab::Op::copy ? "copy has no bias" : "no bias with");
    }
    for (DType x_dtype : {DType::f16, DType::bf16}) {
      if (kernel.op == normlab::Op::copy || !declares(kernel, x_dtype)) continue;
      Case stream = base;  // an fp32 residual stream: the fused adds' only
      stream.shape.dtype = stream.shape.weight_dtype = x_dtype;
      stream.shape.residual_dtype = DType::f32;
      const bool adds = normlab::is_add(kernel.op);
      expect(stream, adds && kernel.can.fp32_residual,
             adds ? "no fp32 residual with" : "has no residual");
      stream.shape.residual_dtype = x_dtype == DType::f16 ? DType::bf16 : DType::f16;
      expect(stream, false, adds ? "residual with" : "has no residual");  // never 16-bit
    }
    if (kernel.op != normlab::Op::copy) {
      Case head_view = base;  // x's rows in groups: the norms' and their backward's only
      head_view.group_rows = 5;
      head_view.group_gap = 2 * base.shape.cols;
      const bool adds = normlab::is_add(kernel.op);
      expect(head_view, !adds && kernel.can.two_level_rows && kernel.can.strided,
             !kernel.can.strided ? "stride"
             : adds              ? "add + norm reads x one stride"
                                 : "two-level rows");
    }
    if (normlab::is_backward(kernel.op)) {
      Case other_dy = base;
      other_dy.shape.dy_dtype = base.shape.dtype == DType::f32 ? DType::bf16 : DType::f32;
      expect(other_dy, kernel.can.other_dy_dtype, "dy with");
    }
    if (normlab::is_forward_norm(kernel.op)) {
      Case statistics = base;
      statistics.statistics = true;
      expect(statistics, kernel.can.writes_statistics, "statistics");
      Case no_weight = base;
      no_weight.shape.weight = false;
      no_weight.shape.bias = false;
      expect(no_weight, kernel.can.optional_parameters, "needs a weight");
    }
    for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
      Case other = base;
      other.shape.dtype = other.shape.weight_dtype = dtype;
      expect(other, declares(kernel, dtype), "tensors");
    }
    if (kernel.can.max_cols != 0) {
      Case wide = base;
      wide.shape.cols = kernel.can.max_cols + 1;
      expect(wide, false, "wider");
    }
    if (kernel.can.whole_chunks_only) {  // 64 bytes a row taken, one element more refused
      Case whole = base;
      whole.shape.cols = 64 / static_cast<int>(normlab::size_of(base.shape.dtype));
      expect(whole, true, "");
      whole.shape.cols += 1;
      expect(whole, false, "whole number of 16-byte chunks");
    }
    // A dy of another dtype runs a 16-bit row widened to fp32: @p row taken up to limit_bytes / 4
    // columns, and refused past them, naming @p refusal.
    auto expect_widened = [&](Case row, std::int64_t limit_bytes, const char* refusal) {
      row.shape.dy_dtype = DType::f32;
      row.shape.cols = limit_bytes / 4;
      expect(row, true, "");
      row.shape.cols += 1;
      expect(row, false, refusal);
    };
    if (kernel.can.max_row_bytes != 0) {
      for (DType dtype : kernel.can.dtypes) {  // a limit in bytes: each dtype's widest row, + 1
        Case widest = base;
        widest.shape.dtype = widest.shape.weight_dtype = dtype;
        widest.shape.cols = kernel.can.max_row_bytes / static_cast<int>(normlab::size_of(dtype));
        expect(widest, true, "");
        Case wide = widest;
        wide.shape.cols += 1;
        expect(wide, false, "wider");
        if (!kernel.can.other_dy_dtype || dtype == DType::f32) continue;
        expect_widened(widest, kernel.can.max_row_bytes, "dy_dtype fp32 with");  // past fp32's
      }
    }
    if (kernel.can.max_off_grid_row_bytes != 0) {
      for (DType dtype : kernel.can.dtypes) {  // off the 16-byte grid: a narrower limit
        const int bytes = static_cast<int>(normlab::size_of(dtype));
        Case off = base;
        off.shape.dtype = off.shape.weight_dtype = dtype;
        off.misalign = 1;
        off.shape.cols = kernel.can.max_off_grid_row_bytes / bytes;
        expect(off, true, "");
        off.shape.cols += 1;
        expect(off, false, "off the 16-byte grid");
        Case on = off;  // as wide, on the grid: its limit is max_row_bytes
        on.misalign = 0;
        on.shape.cols = kernel.can.max_off_grid_row_bytes / bytes + 16 / bytes;
        expect(on, true, "");
        on.shape.cols += 1;  // no longer a whole number of 16 bytes a row
        expect(on, false, "off the 16-byte grid");
        if (!kernel.can.other_dy_dtype || dtype == DType::f32) continue;
        expect_widened(off, kernel.can.max_off_grid_row_bytes,  // off the grid too
                       "widened to fp32: rows off the 16-byte grid");
      }
    }
  }
}

TEST_CASE("a case's own contradictions are refused too", "[registry]") {
  for (const normlab::KernelEntry& kernel : normlab::kernel_registry()) {
    if (kernel.op != normlab::Op::rmsnorm) continue;
    INFO(kernel.name);
    normlab::Case c = accepted_case(kernel);
    c.residual_gradient = true;
    CHECK_THAT(kernel.refusal(c), Catch::Contains("backward"));
    c.residual_gradient = false;
    c.op = normlab::Op::layernorm;
    CHECK_THAT(kernel.refusal(c), Catch::Contains("runs rmsnorm"));
  }
}

#include <fstream>

TEST_CASE("common/ includes only its own headers: the harness does not depend on the chapters",
          "[registry][layers]") {
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(NORMLAB_SOURCE_DIR "/common")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("#include \"", 0) != 0) continue;
      INFO(entry.path().string() << ": " << line);
      CHECK(line.rfind("#include \"normlab/", 0) == 0);
    }
  }
  CHECK(files > 10);
}

// The quoted includes of the files below @p dir that resolve to no file of @p roots (paths from
// the source root, searched as the build's include directories are).
std::vector<std::string> includes_outside(const std::string& dir,
                                          const std::vector<std::string>& roots) {
  const std::filesystem::path source(NORMLAB_SOURCE_DIR);
  std::vector<std::string> outside;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(source / dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("#include \"", 0) != 0) continue;
      const std::string name = line.substr(10, line.find('"', 10) - 10);
      bool found = std::filesystem::exists(entry.path().parent_path() / name);
      for (const std::string& root : roots)
        found = found || std::filesystem::exists(source / root / name);
      if (!found) outside.push_back(entry.path().string() + ": " + line);
    }
  }
  return outside;
}

TEST_CASE("kernels/ and api/ include only kernels/, api/ and common/: never a chapter's file",
          "[registry][layers]") {
  const std::vector<std::string> library = {"kernels", "api/src", "api/include", "common/include"};
  for (const char* dir : {"kernels", "api"}) {
    for (const std::string& include : includes_outside(dir, library))
      FAIL_CHECK(include);
  }
  // The check can fail: chapter 12 includes chapter 11's headers.
  CHECK_FALSE(includes_outside("chapters/12-across-gpus", library).empty());
}

TEST_CASE("each forward op has exactly one default kernel, which takes its own base case",
          "[registry]") {
  using normlab::Op;
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    INFO(normlab::name_of(op));
    int defaults = 0;
    for (const normlab::KernelEntry& kernel : normlab::kernel_registry())
      defaults += kernel.op == op && kernel.default_for_op;
    CHECK(defaults == 1);
    const normlab::KernelEntry* chosen = normlab::default_kernel(op);
    REQUIRE(chosen != nullptr);
    CHECK(chosen->op == op);
    CHECK(chosen->refusal(accepted_case(*chosen)).empty());
  }
  // No op has two: default_kernel would pick one silently.
  for (Op op : {Op::copy, Op::rmsnorm_backward, Op::layernorm_backward}) {
    int defaults = 0;
    for (const normlab::KernelEntry& kernel : normlab::kernel_registry())
      defaults += kernel.op == op && kernel.default_for_op;
    CHECK(defaults <= 1);
  }
}
