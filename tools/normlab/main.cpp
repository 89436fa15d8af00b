// SPDX-License-Identifier: Apache-2.0
// The normlab program.
//   normlab tour  [options]  runs every registered kernel on one problem (default 2048 x 8192
//                            fp32), verifies each against float64 and prints one table.
//   normlab check [options]  runs one kernel (the dispatcher's choice by default) on one case
//                            and compares it with float64.
//   normlab explain [options]  prints what the dispatcher runs for one call and why.
//   normlab list             prints the registry.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "check.hpp"
#include "explain.hpp"
#include "normlab/command_line.hpp"
#include "normlab/kernel.hpp"
#include "normlab/program.hpp"
#include "registry.hpp"

namespace {

constexpr const char* kUsage =
    "usage: normlab <command> [options]\n"
    "  tour     run every registered kernel on one problem and print a table\n"
    "  check    run one kernel on one case (any dtype, stride, alignment) against float64\n"
    "  explain  print the kernel the dispatcher runs for a call, why, and its launch\n"
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
      line.refuse_unknown("normlab list");
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "normlab list: %s\n%s", error.what(), kListUsage);
    return 2;
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {  // normlab alone: what it can do
    std::printf("%s", kUsage);
    return 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "tour")
      return normlab::table_program("normlab tour", kTourUsage, argc, argv, 2,
                                    normlab::kernel_registry());
    if (command == "check") return normlab::tool::check_command(argc, argv, 2);
    if (command == "explain")
      return normlab::tool::explain_command(argc, argv, 2, normlab::tool::current_gpu());
    if (command == "list") return list(argc, argv);
    if (command == "--help" || command == "-h" || command == "help") {
      std::printf("%s", kUsage);
      return 0;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "normlab %s: %s\n", command.c_str(), error.what());
    return 1;
  }
  std::fprintf(stderr, "normlab: unknown command '%s'\n%s", command.c_str(), kUsage);
  return 2;
}
