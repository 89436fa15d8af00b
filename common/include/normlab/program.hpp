/// @file program.hpp
/// @brief What every chapter program and `normlab tour` share: option parsing, the GPU
/// check, and the results table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"

namespace normlab {

/// Options shared by the chapter programs and `normlab tour`.
struct ProgramOptions {
  Op op = Op::rmsnorm;
  std::int64_t rows = 2048;
  std::int64_t cols = 8192;
  DType dtype = DType::f32;
  std::string json;    ///< write the table here too
  std::string filter;  ///< run only kernels whose name contains this
  bool quick = false;  ///< one timed repetition, no warm-up (sanitizers, smoke tests)
};

/// Parses --op --rows --cols --dtype --json --kernel --quick from argv[first...]. Throws
/// std::invalid_argument naming the bad option.
ProgramOptions parse_program_options(int argc, char** argv, int first);

/// One row of a results table.
struct ResultRow {
  const KernelEntry* kernel = nullptr;
  std::string problem;  ///< the case it ran on
  bool passed = false;
  std::string failure;  ///< the comparison report when it failed
  Measurement measurement;
  std::optional<double> speedup_vs_baseline;
  std::optional<double> speedup_vs_previous;
};

/// The kernels of @p kernels whose name contains options.filter and that support the
/// problem options describe, in order.
std::vector<const KernelEntry*> select_kernels(const std::vector<KernelEntry>& kernels,
                                               const ProgramOptions& options);

/// Full timing, or with --quick a single unflushed repetition.
TimingOptions timing_for(const ProgramOptions& options);

/// Verifies and times each kernel on the problem of @p options (one set of inputs per op),
/// and fills in the speed-ups over the eager baseline and over the previous chapter's kernel
/// of the same op.
std::vector<ResultRow> run_table(const std::vector<const KernelEntry*>& kernels,
                                 const ProgramOptions& options, const TimingOptions& timing);

/// Prints the table with the GPU name, the copy roof and the problem above it.
void print_table(const std::vector<ResultRow>& rows, const ProgramOptions& options);

/// Writes the table as JSON (GPU, copy roof, problem, one object per kernel) to @p path.
void write_json(const std::vector<ResultRow>& rows, const ProgramOptions& options,
                const std::string& path);

/// The whole of a chapter program: options --rows --cols --dtype --quick --help; runs
/// @p kernels on the problem and prints the table. Returns the process exit code
/// (0 all verified, 1 a kernel failed, 2 bad options, kNoGpuExitCode without a GPU).
int chapter_main(int argc, char** argv, const std::vector<KernelEntry>& kernels);

}  // namespace normlab
