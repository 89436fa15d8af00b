// SPDX-License-Identifier: Apache-2.0
// Chapter 11 program: RMSNorm -> linear by the three paths on the paper's 18 shapes (or one
// shape), each verified against the float64 reference, then timed as CUDA-graph replays.
#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.hpp"
#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/json.hpp"
#include "normlab/normlab.hpp"
#include "normlab/program.hpp"

namespace {

using namespace normlab;
using namespace normlab::ch11;

constexpr const char* kUsage =
    "usage: ch11_flashnorm [--tokens M --k K --n N] [--fused-kernel warp|cluster] [--quick]\n"
    "                      [--json FILE]\n"
    "Y = rmsnorm(X; g, 1e-6) · W, fp16, by three paths: plain (normlab's RMSNorm, then\n"
    "cuBLASLt), deferred (1/RMS alone, then cuBLASLt on raw X with W* = diag(g) · W, the rows\n"
    "scaled in its epilogue) and fused (one kernel, at most 64 tokens). Each path is verified\n"
    "against float64 on up to 64 rows, then timed as CUDA-graph replays (median of 7 samples).\n"
    "Beside them: cuBLASLt's X · W* alone (no norm: what any path that leaves the product to\n"
    "cuBLAS pays), and each of the fused path's two kernels (warp split, W* packed; cluster\n"
    "split), verified and timed whichever the path picks.\n"
    "  --tokens M --k K --n N   one shape instead of the paper's 18 (all three, or none)\n"
    "  --fused-kernel warp|cluster  time only this fused kernel on its own (default both)\n"
    "  --quick                  one sample of 2 replays (sanitizers, smoke tests)\n"
    "  --json FILE              write the table as JSON too\n"
    "exit codes: 0 ok, 1 a path failed verification, 2 bad usage, 69 no CUDA GPU\n";

struct Options {
  std::vector<std::int64_t> tokens{std::begin(kPaperTokens), std::end(kPaperTokens)};
  std::vector<LayerShape> layers{std::begin(kPaperLayers), std::end(kPaperLayers)};
  BenchOptions bench;
  std::string json;
};

Options parse(int argc, char** argv) {
  Options options;
  std::int64_t tokens = 0, k = 0, n = 0;
  CommandLine line(argc, argv, 1);
  while (line.next()) {
    if (line.is("--tokens")) {
      tokens = line.integer(1);
    } else if (line.is("--k")) {
      k = line.integer(1, 1 << 20);
    } else if (line.is("--n")) {
      n = line.integer(1, 1 << 20);
    } else if (line.is("--fused-kernel")) {
      const std::string kernel = line.value();
      if (kernel == "warp") {
        options.bench.fused_kernels = {FusedKernel::warp_split};
      } else if (kernel == "cluster") {
        options.bench.fused_kernels = {FusedKernel::cluster_split};
      } else {
        refuse_option("--fused-kernel", "must be warp or cluster");
      }
    } else if (line.is("--quick")) {
      options.bench.samples = 1;
      options.bench.replays = 2;
    } else if (line.is("--json")) {
      options.json = line.value();
    } else {
      line.refuse_unknown("ch11_flashnorm");
    }
  }
  if (tokens != 0 || k != 0 || n != 0) {
    if (tokens == 0 || k == 0 || n == 0)
      refuse_option("--tokens/--k/--n", "must be given together");
    options.tokens = {tokens};
    options.layers = {{k, n}};
  }
  return options;
}

// normlab's RMSNorm as the plain path runs it: the public dispatcher (chapter 09's table).
void run_normlab(const NormCall& call, cudaStream_t stream) {
  normlab::run(call, stream);
}

std::string microseconds(const PathResult& r) {
  if (!r.ran) return "-";
  if (!r.passed) return "FAILED";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", r.microseconds);
  return text;
}

// The path that measured fastest, among those that ran and passed.
const PathResult* fastest(const ShapeResult& s) {
  const PathResult* best = nullptr;
  for (const PathResult& r : s.paths) {
    if (r.ran && r.passed && (best == nullptr || r.microseconds < best->microseconds)) best = &r;
  }
  return best;
}

void print_row(const ShapeResult& s) {
  const PathResult& plain = s.paths[0];
  const PathResult& pick = s.paths[static_cast<int>(s.pick)];
  const PathResult* best = fastest(s);
  std::string speedup = "-";
  if (plain.passed && pick.passed) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2fx", plain.microseconds / pick.microseconds);
    speedup = text;
  }
  std::printf("%5lld -> %-5lld %6lld | %9s %9s %9s | %-8s %7s | %-8s | %10.2f | %10s %13s\n",
              static_cast<long long>(s.k_cols), static_cast<long long>(s.n_cols),
              static_cast<long long>(s.tokens), microseconds(s.paths[0]).c_str(),
              microseconds(s.paths[1]).c_str(), microseconds(s.paths[2]).c_str(), name_of(s.pick),
              speedup.c_str(), best ? name_of(best->path) : "-", s.gemm_alone_us,
              microseconds(s.fused_kernels[0].result).c_str(),
              microseconds(s.fused_kernels[1].result).c_str());
}

void write_json(const GraphFloor& floor, const std::vector<ShapeResult>& shapes,
                const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  JsonWriter json(out);
  json.begin_object().member("gpu", device_name()).member("dtype", "fp16").member("eps", 1e-6);
  json.member("timing", "CUDA graph replay, median of samples, microseconds a replay");
  json.key("floor_us").begin_object().member("one_empty_kernel", floor.one_kernel);
  json.member("two_empty_kernels", floor.two_kernels).end_object();
  json.key("shapes").begin_array();
  for (const ShapeResult& s : shapes) {
    json.begin_object().member("k", s.k_cols).member("n", s.n_cols).member("tokens", s.tokens);
    json.member("rows_checked", s.rows_checked).member("deferred_row_scale", s.row_scale);
    for (const PathResult& r : s.paths) {
      json.key(name_of(r.path)).begin_object().member("ran", r.ran).member("passed", r.passed);
      if (r.ran) json.member("verdict", r.verdict);
      if (r.passed) json.member("us", r.microseconds);
      json.end_object();
    }
    const PathResult* best = fastest(s);
    json.member("gemm_alone_us", s.gemm_alone_us);
    for (const KernelResult& k : s.fused_kernels) {
      json.key(k.kernel == FusedKernel::warp_split ? "fused_warp_split" : "fused_cluster_split");
      json.begin_object().member("ran", k.result.ran).member("passed", k.result.passed);
      if (k.result.ran) json.member("verdict", k.result.verdict);
      if (k.result.passed) json.member("us", k.result.microseconds);
      json.end_object();
    }
    json.member("pick", name_of(s.pick)).member("fastest", best ? name_of(best->path) : "none");
    json.end_object();
  }
  json.end_array().end_object();
  out << "\n";
}

// Every shape by every path, verified and timed, printed as a table.
int run_all(const Options& options) {
  std::printf("%s; fp16, eps 1e-6; CUDA-graph replays, us a replay (L2 warm, as replayed)\n",
              device_name().c_str());
  const GraphFloor floor = measure_floor(options.bench);
  std::printf("floor: a graph of one empty kernel replays in %.2f us, of two in %.2f us\n",
              floor.one_kernel, floor.two_kernels);
  std::printf(
      "    K -> N     tokens |     plain  deferred     fused | pick     vs plain | "
      "fastest  | GEMM alone | warp split cluster split\n");
  std::vector<ShapeResult> shapes;
  bool all_passed = true;
  std::uint64_t seed = 1100;
  for (const LayerShape& layer : options.layers) {
    for (std::int64_t tokens : options.tokens) {
      shapes.push_back(
          measure(run_normlab, tokens, layer.k_cols, layer.n_cols, options.bench, seed++));
      print_row(shapes.back());
      for (const PathResult& r : shapes.back().paths) {
        if (r.ran && !r.passed) {
          all_passed = false;
          std::printf("  %s FAILED: %s\n", name_of(r.path), r.verdict.c_str());
        }
      }
      for (const KernelResult& k : shapes.back().fused_kernels) {
        if (k.result.ran && !k.result.passed) {
          all_passed = false;
          std::printf("  fused, %s FAILED: %s\n", name_of(k.kernel), k.result.verdict.c_str());
        }
      }
    }
  }
  std::printf("deferred path's row scale: %s\n", shapes.front().row_scale.c_str());
  std::printf("verified on up to %lld rows a shape against float64 (all rows when fewer)\n",
              static_cast<long long>(options.bench.most_rows_checked));
  if (!options.json.empty()) write_json(floor, shapes, options.json);
  return all_passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return normlab::own_options_main("ch11_flashnorm", kUsage, argc, argv, parse, run_all);
}
