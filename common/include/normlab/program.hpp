// SPDX-License-Identifier: Apache-2.0
/// @file program.hpp
/// @brief What every chapter program and `normlab tour` share: option parsing, the GPU
/// check, the choice of kernels and the results table.
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "normlab/command_line.hpp"
#include "normlab/device.hpp"
#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"

namespace normlab {

/// Options shared by the chapter programs and `normlab tour`.
struct ProgramOptions {
  std::optional<Op> op;  ///< run only this op's kernels; every op when empty
  std::int64_t rows = 2048;
  std::int64_t cols = 8192;
  DType dtype = DType::f32;
  std::string json;    ///< write the table here too
  std::string filter;  ///< run only kernels whose name contains this
  bool quick = false;  ///< one timed repetition, no warm-up (sanitizers, smoke tests)
};

/// The options of parse_program_options, one a line, for a usage text.
extern const char* const kProgramOptionsUsage;

/// Parses --op --rows --cols --dtype --json --kernel --quick from argv[first...]. Throws
/// std::invalid_argument naming the bad option; @p program names the program in the message
/// for an unknown option.
ProgramOptions parse_program_options(int argc, char** argv, int first,
                                     std::string_view program = "this program");

/// A kernel that matched the options but refuses their problem, and why.
struct Refusal {
  const KernelEntry* kernel = nullptr;
  std::string reason;
};

/// The kernels chosen by the options: those to run, in order, and those refused.
struct KernelSelection {
  std::vector<const KernelEntry*> runnable;
  std::vector<Refusal> refused;
};

/// The kernels of @p kernels of options.op (any op when empty) whose name contains
/// options.filter, split into those that can run the problem the options describe and
/// those that refuse it.
KernelSelection select_kernels(const std::vector<KernelEntry>& kernels,
                               const ProgramOptions& options);

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

/// Full timing, or with --quick a single unflushed repetition.
TimingOptions timing_for(const ProgramOptions& options);

/// Fills the speed-ups of every passing row from the rows' kernels, results and times:
/// speedup_vs_baseline over the first passing baseline kernel of the same op listed before
/// it; speedup_vs_previous over the fastest passing kernel of the same op from an earlier
/// chapter (not the last one listed, which is often a chapter's deliberately slow variant).
void fill_speedups(std::vector<ResultRow>& rows);

/// Verifies and times each kernel on the problem of @p options (one set of inputs per op),
/// then fills the speed-ups (fill_speedups).
std::vector<ResultRow> run_table(const std::vector<const KernelEntry*>& kernels,
                                 const ProgramOptions& options, const TimingOptions& timing);

/// Prints the table with the GPU name, the copy roof and the problem above it.
void print_table(const std::vector<ResultRow>& rows, const ProgramOptions& options);

/// Writes the table as JSON (GPU, copy roof, problem, one object per kernel) to @p path.
void write_json(const std::vector<ResultRow>& rows, const ProgramOptions& options,
                const std::string& path);

/// The whole of a program that prints a results table (`normlab tour`, every chapter
/// program): --help prints @p usage; parses the options of argv[first...]; refuses bad ones
/// before touching the GPU; runs the selected kernels of @p kernels, says which refuse the
/// problem and why, and prints the table. Returns the process exit code (0 all verified,
/// 1 a kernel failed, 2 bad options, kNoGpuExitCode without a GPU).
int table_program(std::string_view program, std::string_view usage, int argc, char** argv,
                  int first, const std::vector<KernelEntry>& kernels);

/// table_program for a chapter's program with its @p kernels.
int chapter_main(int argc, char** argv, const std::vector<KernelEntry>& kernels);

/// main() of a chapter program with options of its own (chapters 11 and 12): @p usage for
/// --help (exit 0); @p parse(argc, argv), whose std::invalid_argument prints the message and the
/// usage (exit 2); kNoGpuExitCode without a GPU; then @p run(options), an exception printed with
/// the program's name (exit 1).
template <typename Parse, typename Run>
int own_options_main(const char* program, const char* usage, int argc, char** argv, Parse&& parse,
                     Run&& run) {
  if (asks_for_help(argc, argv, 1)) {
    std::printf("%s", usage);
    return 0;
  }
  decltype(parse(argc, argv)) options;
  try {
    options = parse(argc, argv);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "%s: %s\n%s", program, error.what(), usage);
    return 2;
  }
  if (report_missing_gpu(program)) return kNoGpuExitCode;
  try {
    return run(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", program, error.what());
    return 1;
  }
}

}  // namespace normlab
