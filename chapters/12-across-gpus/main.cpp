// SPDX-License-Identifier: Apache-2.0
// Chapter 12 program: norms over rows split across this process's GPUs, each rank verified
// against the float64 reference of the unsharded rows and timed (the step, each stage alone,
// one GPU doing the whole tensor); then RMSNorm -> row-parallel linear by its three schedules,
// with one overlapped step's timeline.
#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch12.hpp"
#include "measure.hpp"
#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/json.hpp"
#include "normlab/normlab.hpp"
#include "normlab/program.hpp"
#include "normlab/registry.hpp"
#include "normlab/roofline.hpp"
#include "spread.cuh"

namespace {

using namespace normlab;
using namespace normlab::ch12;

constexpr const char* kUsage =
    "usage: ch12_across_gpus [--gpus G] [--rows M] [--cols C] [--op OP] [--dtype DT]\n"
    "                        [--tokens T] [--n N] [--no-linear] [--quick] [--json FILE]\n"
    "Each row's columns split across G GPUs (one process, one NCCL communicator a GPU): each\n"
    "GPU reduces its slice to moments, NCCL exchanges them (RMSNorm: all-reduce; LayerNorm:\n"
    "all-gather, merged in a fixed order), each GPU normalises its slice. Every rank is checked\n"
    "against float64, then timed beside normlab::run doing the whole tensor on GPU 0.\n"
    "Then Y = rmsnorm(X) · W with W split by rows (tensor parallelism's row-parallel layer),\n"
    "fp16: normalise first, deferred (chapter 11), and deferred with the all-reduce on a\n"
    "second stream under the GEMM.\n"
    "  --gpus G        GPUs 0 .. G-1 (default: every visible GPU)\n"
    "  --rows M --cols C   the norm's problem (default 16384 x 8192)\n"
    "  --op OP         rmsnorm, layernorm, add_rmsnorm or add_layernorm (default: the first two)\n"
    "  --dtype DT      fp32, fp16 or bf16 (default: bf16 and fp32)\n"
    "  --tokens T      the linear layer's tokens (default: 64, 1024 and M); K = C, N = --n\n"
    "  --n N           the linear layer's outputs (default C)\n"
    "  --no-linear     the norms only\n"
    "  --quick         one sample of 2 steps, the linear layer at one size (sanitizers)\n"
    "  --json FILE     write the tables and the timeline as JSON too\n"
    "NCCL_NVLS_ENABLE=0 is set unless the environment sets it (NVLink multicast stays off).\n"
    "exit codes: 0 ok, 1 a rank failed verification, 2 bad usage, 69 no CUDA GPU\n";

struct Options {
  int gpus = 0;  // 0: every visible GPU
  std::int64_t rows = 16384, cols = 8192, n_cols = 0;
  std::vector<Op> ops{Op::rmsnorm, Op::layernorm};
  std::vector<DType> dtypes{DType::bf16, DType::f32};
  std::vector<std::int64_t> tokens;
  bool linear = true;
  TimingPlan plan;
  std::string json;
};

Options parse(int argc, char** argv) {
  Options o;
  CommandLine line(argc, argv, 1);
  std::int64_t tokens = 0;
  bool quick = false;
  while (line.next()) {
    if (line.is("--gpus")) {
      o.gpus = static_cast<int>(line.integer(1, 64));
    } else if (line.is("--rows")) {
      o.rows = line.integer(1);
    } else if (line.is("--cols")) {
      o.cols = line.integer(1);
    } else if (line.is("--op")) {
      o.ops = {parse_op(line.value(), "--op")};
      if (!is_forward_norm(o.ops[0]))
        refuse_option("--op", "must be a forward norm: a sharded backward is not taught here");
    } else if (line.is("--dtype")) {
      o.dtypes = {parse_dtype(line.value(), "--dtype")};
    } else if (line.is("--tokens")) {
      tokens = line.integer(1);
    } else if (line.is("--n")) {
      o.n_cols = line.integer(1, 1 << 20);
    } else if (line.is("--no-linear")) {
      o.linear = false;
    } else if (line.is("--quick")) {
      quick = true;
    } else if (line.is("--json")) {
      o.json = line.value();
    } else {
      line.refuse_unknown("ch12_across_gpus");
    }
  }
  if (o.n_cols == 0) o.n_cols = o.cols;
  if (quick) o.plan = {.samples = 1, .steps = 2};
  if (tokens != 0) {
    o.tokens = {tokens};
  } else if (quick) {
    o.tokens = {std::min<std::int64_t>(o.rows, 64)};
  } else {
    o.tokens = {64, 1024, o.rows};
  }
  return o;
}

// normlab::run on one GPU, as a registry kernel the Workspace can verify and time: the
// dispatcher's pick for each call, with the capabilities of the op's default kernel.
KernelEntry one_gpu_entry(Op op) {
  KernelEntry entry = *default_kernel(op);
  entry.name = "normlab::run";
  entry.launch = [](const NormCall& call, cudaStream_t stream) { normlab::run(call, stream); };
  // The most any forward kernel the dispatcher may pick needs: chapter 10's.
  entry.scratch_bytes = [](const Shape& shape) {
    return kernels::spread::scratch_bytes(shape.rows, shape.cols,
                                          static_cast<int>(size_of(shape.dtype)));
  };
  return entry;
}

void print_norm(const NormResult& r) {
  const Shape& s = r.problem.shape;
  std::printf(
      "%-13s %-4s %6lld x %-7lld | %9.1f %5.1f%% | %d %9.1f %5.1f%% | %8.1f %8.1f %9.1f | "
      "%5.2fx | %s\n",
      name_of(r.problem.op), name_of(s.dtype), static_cast<long long>(s.rows),
      static_cast<long long>(s.cols), r.one_gpu_us, r.one_gpu_percent, r.ranks, r.step_us,
      r.percent_of_roof, r.moments_us, r.exchange_us, r.normalise_us,
      r.step_us > 0.0 ? r.one_gpu_us / r.step_us : 0.0, r.passed ? "passed" : "FAILED");
}

void print_linear(const LinearResult& r) {
  const double bar = r.gemm_us + r.norm_passes_us;
  std::printf("%6lld %5lld -> %-5lld | %9.1f %9.1f | %9.1f %9.1f %9.1f | %5.3f | %s\n",
              static_cast<long long>(r.tokens), static_cast<long long>(r.k_cols),
              static_cast<long long>(r.n_cols), r.gemm_us, r.norm_passes_us, r.normalise_first_us,
              r.deferred_us, r.overlapped_us, bar > 0.0 ? r.overlapped_us / bar : 0.0,
              r.passed ? "passed" : "FAILED");
}

void print_timeline(const LinearResult& r) {
  std::printf("one overlapped step, %lld tokens, %lld -> %lld, us from its start:\n",
              static_cast<long long>(r.tokens), static_cast<long long>(r.k_cols),
              static_cast<long long>(r.n_cols));
  for (const Stage& s : r.timeline) {
    std::printf("  rank %d %-7s %-11s %9.1f .. %9.1f\n", s.rank, s.stream.c_str(), s.stage.c_str(),
                s.start_us, s.end_us);
  }
}

void write_json(const std::vector<NormResult>& norms, const std::vector<LinearResult>& linears,
                int gpus, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  JsonWriter json(out);
  json.begin_object().member("gpu", device_name()).member("ranks", gpus);
  json.member("copy_roof_gbps", copy_roof().gbps);
  json.member("timing", "median over samples of the slowest GPU, us a step");
  json.key("norm").begin_array();
  for (const NormResult& r : norms) {
    json.begin_object().member("op", name_of(r.problem.op));
    json.member("dtype", name_of(r.problem.shape.dtype)).member("rows", r.problem.shape.rows);
    json.member("cols", r.problem.shape.cols).member("ranks", r.ranks);
    json.member("passed", r.passed).member("one_gpu_us", r.one_gpu_us);
    json.member("one_gpu_percent_of_roof", r.one_gpu_percent).member("step_us", r.step_us);
    json.member("moments_us", r.moments_us).member("exchange_us", r.exchange_us);
    json.member("normalise_us", r.normalise_us).member("percent_of_roof", r.percent_of_roof);
    json.member("message_bytes", static_cast<std::int64_t>(r.message_bytes)).end_object();
  }
  json.end_array().key("overlap").begin_array();
  for (const LinearResult& r : linears) {
    json.begin_object().member("tokens", r.tokens).member("k", r.k_cols).member("n", r.n_cols);
    json.member("ranks", r.ranks).member("passed", r.passed).member("gemm_us", r.gemm_us);
    json.member("norm_passes_us", r.norm_passes_us);
    json.member("normalise_first_us", r.normalise_first_us).member("deferred_us", r.deferred_us);
    json.member("overlapped_us", r.overlapped_us).key("timeline").begin_array();
    for (const Stage& s : r.timeline) {
      json.begin_object().member("rank", s.rank).member("stream", s.stream);
      json.member("stage", s.stage).member("start_us", s.start_us).member("end_us", s.end_us);
      json.end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();
  out << "\n";
}

int run_all(const Options& o) {
  const int gpus = o.gpus > 0 ? o.gpus : visible_gpus();
  Group group(gpus);
  group.use(0);
  int nccl = 0;
  NORMLAB_CHECK_NCCL(ncclGetVersion(&nccl));
  std::printf("%d x %s; NCCL %d; GPU 0's copy roof %.1f GB/s%s\n", gpus, device_name().c_str(),
              nccl, copy_roof().gbps,
              gpus == 1 ? " (one GPU: the exchange is NCCL's one-rank copy)" : "");
  std::printf(
      "op            dtype rows x cols   | one GPU us  roof | G   step us  roof | "
      "moments exchange normalise | vs one | verified\n");
  bool passed = true;
  std::vector<NormResult> norms;
  for (Op op : o.ops) {
    const KernelEntry one_gpu = one_gpu_entry(op);
    for (DType dtype : o.dtypes) {
      Case c = default_case(op, o.rows, o.cols, dtype);
      c.statistics = true;
      norms.push_back(measure_norm(group, c, one_gpu, o.plan));
      print_norm(norms.back());
      if (!norms.back().passed) std::printf("%s\n", norms.back().verdict.c_str());
      passed = passed && norms.back().passed;
    }
  }
  std::printf("(roof: the op's bytes model in the step's time, of G x GPU 0's copy roof)\n");
  std::vector<LinearResult> linears;
  if (o.linear) {
    std::printf("\nrmsnorm -> row-parallel linear, fp16, us a step; bar = GEMM + norm passes\n");
    std::printf(
        "tokens  K -> N    |      GEMM norm pass | norm 1st  deferred overlapped | "
        "/ bar | verified\n");
    std::uint64_t seed = 1200;
    for (std::int64_t tokens : o.tokens) {
      linears.push_back(measure_linear(group, tokens, o.cols, o.n_cols, o.plan, seed++));
      print_linear(linears.back());
      if (!linears.back().passed) std::printf("%s", linears.back().verdict.c_str());
      passed = passed && linears.back().passed;
    }
    if (!linears.empty() && linears.back().passed) print_timeline(linears.back());
  }
  if (!o.json.empty()) write_json(norms, linears, gpus, o.json);
  return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return normlab::own_options_main("ch12_across_gpus", kUsage, argc, argv, parse, run_all);
}
