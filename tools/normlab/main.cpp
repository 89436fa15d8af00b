// SPDX-License-Identifier: Apache-2.0
// The normlab program.
//   normlab tour  [options]  runs every registered kernel on one problem (default 2048 x 8192
//                            fp32), verifies each against float64 and prints one table;
//                            --kernel NAME also runs the tuned chooser's candidate called NAME.
//   normlab check [options]  runs one kernel (the dispatcher's choice by default) on one case
//                            and compares it with float64.
//   normlab explain [options]  prints what the dispatcher runs for one call and why.
//   normlab tune [options]   checks and times every candidate kernel on a grid of shapes and
//                            writes this GPU's tuned table, which the dispatcher reads.
//   normlab list             prints the registry.
// Every option can be given as --name value or --name=value. Bad usage prints the problem in
// one line and where the usage is (exit 2).
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "candidates.hpp"
#include "check.hpp"
#include "explain.hpp"
#include "normlab/command_line.hpp"
#include "normlab/kernel.hpp"
#include "normlab/program.hpp"
#include "normlab/registry.hpp"
#include "tune.hpp"
#include "usage_error.hpp"

namespace {

constexpr const char* kUsage =
    "usage: normlab <command> [options]\n"
    "  tour     run every registered kernel on one problem and print a table\n"
    "  check    run one kernel on one case (any dtype, stride, alignment) against float64\n"
    "  explain  print the kernel the dispatcher runs for a call, why, and its launch\n"
    "  tune     time every candidate kernel on a grid of shapes; write this GPU's table\n"
    "  list     print the kernel registry\n"
    "normlab <command> --help lists the command's options.\n"
    "exit codes: 0 ok, 1 a kernel failed verification, 2 bad usage or a refused case,\n"
    "            69 no CUDA GPU\n";

const std::string kTourUsage =
    std::string(
        "usage: normlab tour [options]\n"
        "runs every registered kernel on one problem, verifies each against float64 and\n"
        "prints one table; kernels that refuse the problem are skipped with the reason\n") +
    normlab::kProgramOptionsUsage +
    "exit codes: 0 ok, 1 a kernel failed verification, 2 bad usage, 69 no CUDA GPU\n";

// What normlab tour prints after a bad option: where the usage is.
constexpr const char* kTourPointer = "see normlab tour --help\n";

constexpr const char* kListUsage =
    "usage: normlab list\n"
    "prints every registered kernel: chapter, name, op, dtypes and what it does\n";

int list(int argc, char** argv) {
  if (normlab::asks_for_help(argc, argv, 2)) {
    std::printf("%s", kListUsage);
    return 0;
  }
  try {
    normlab::CommandLine line(argc, argv, 2);
    while (line.next())
      normlab::tool::refuse_unknown_option(line, "normlab list");
  } catch (const std::invalid_argument& error) {
    return normlab::tool::usage_error("normlab list", error.what());
  }
  std::printf("%-3s %-30s %-12s %-16s %s\n", "ch", "kernel", "op", "dtypes", "summary");
  for (const normlab::KernelEntry& kernel : normlab::kernel_registry()) {
    std::string dtypes;
    for (normlab::DType d : kernel.can.dtypes)
      dtypes += std::string(dtypes.empty() ? "" : ",") + normlab::name_of(d);
    std::printf("%02d  %-30s %-12s %-16s %s\n", kernel.chapter, kernel.name.c_str(),
                normlab::name_of(kernel.op), dtypes.c_str(), kernel.summary.c_str());
  }
  return 0;
}

// The words of the command line, each "--name=value" after the command split into "--name" and
// "value": every command takes both spellings of an option.
std::vector<std::string> with_values_apart(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 0; i < argc; ++i) {
    const std::string word = argv[i];
    const std::size_t equals = word.find('=');
    if (i < 2 || !word.starts_with("--") || equals == std::string::npos) {
      words.push_back(word);
      continue;
    }
    words.push_back(word.substr(0, equals));
    words.push_back(word.substr(equals + 1));
  }
  return words;
}

// The registry, and the tuned chooser's candidate that --kernel names exactly when it is not
// registered (a configuration of a family, ch09_<op>@<config>, which `normlab explain` can name).
std::vector<normlab::KernelEntry> tour_kernels(int argc, char** argv) {
  std::vector<normlab::KernelEntry> kernels = normlab::kernel_registry();
  try {
    const std::string named = normlab::parse_program_options(argc, argv, 2).filter;
    const normlab::dispatch::Candidate* candidate = normlab::dispatch::candidate_named(named);
    if (candidate != nullptr && normlab::find_kernel(named) == nullptr)
      kernels.push_back(*candidate->kernel);
  } catch (const std::invalid_argument&) {
    // Bad options: table_program says so.
  }
  return kernels;
}

}  // namespace

int main(int given_argc, char** given_argv) {
  std::vector<std::string> words = with_values_apart(given_argc, given_argv);
  std::vector<char*> pointers;
  for (std::string& word : words)
    pointers.push_back(word.data());
  pointers.push_back(nullptr);
  const int argc = static_cast<int>(words.size());
  char** argv = pointers.data();
  if (argc < 2) {  // normlab alone: what it can do
    std::printf("%s", kUsage);
    return 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "tour") {
      if (normlab::asks_for_help(argc, argv, 2)) {
        std::printf("%s", kTourUsage.c_str());
        return 0;
      }
      return normlab::table_program("normlab tour", kTourPointer, argc, argv, 2,
                                    tour_kernels(argc, argv));
    }
    if (command == "check") return normlab::tool::check_command(argc, argv, 2);
    if (command == "explain")
      return normlab::tool::explain_command(argc, argv, 2, normlab::tool::current_gpu());
    if (command == "tune") return normlab::tool::tune_command(argc, argv, 2);
    if (command == "list") return list(argc, argv);
    if (command == "--help" || command == "-h" || command == "help") {
      std::printf("%s", kUsage);
      return 0;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "normlab %s: %s\n", command.c_str(), error.what());
    return 1;
  }
  return normlab::tool::usage_error("normlab", "unknown command '" + command + "'");
}
