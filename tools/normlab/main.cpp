// The normlab program.
//   normlab tour  [--rows M] [--cols N] [--dtype T] [--kernel NAME] [--json FILE] [--quick]
//       runs every registered kernel on one problem (default RMSNorm-sized 2048 x 8192 fp32),
//       verifies each against float64 and prints one table.
//   normlab check --op OP --dtype T --rows M --cols N [options]
//       runs one kernel (chapter 07's by default) on one case and compares it with float64.
//   normlab list  prints the registry.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "check.hpp"
#include "normlab/device.hpp"
#include "normlab/kernel.hpp"
#include "normlab/program.hpp"
#include "registry.hpp"

namespace {

constexpr const char* kUsage =
    "usage: normlab <command> [options]\n"
    "  tour   run every registered kernel on one problem and print a table\n"
    "         --rows M (2048) --cols N (8192) --dtype fp32|fp16|bf16 (fp32)\n"
    "         --kernel NAME (run kernels whose name contains NAME) --json FILE --quick\n"
    "  check  run one kernel on one case (any dtype, stride, alignment) against float64\n"
    "         normlab check --help lists its options\n"
    "  list   print the kernel registry\n"
    "exit codes: 0 ok, 1 a kernel failed verification, 2 bad usage, 69 no CUDA GPU\n";

int list() {
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

int tour(int argc, char** argv) {
  normlab::ProgramOptions options;
  try {
    options = normlab::parse_program_options(argc, argv, 2);
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "normlab tour: %s\n%s", error.what(), kUsage);
    return 2;
  }
  if (const std::string reason = normlab::gpu_unavailable_reason(); !reason.empty()) {
    std::fprintf(stderr, "normlab tour: %s; the tour runs kernels and needs a CUDA GPU.\n",
                 reason.c_str());
    return normlab::kNoGpuExitCode;
  }
  const auto kernels = normlab::select_kernels(normlab::kernel_registry(), options);
  if (kernels.empty()) {
    std::fprintf(stderr, "normlab tour: no registered kernel matches these options\n");
    return 2;
  }
  const auto rows = normlab::run_table(kernels, options, normlab::timing_for(options));
  normlab::print_table(rows, options);
  if (!options.json.empty()) normlab::write_json(rows, options, options.json);
  for (const auto& row : rows) {
    if (!row.passed) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "tour") return tour(argc, argv);
    if (command == "check" && argc > 2 && std::strcmp(argv[2], "--help") == 0) {
      std::printf("%s", normlab::tool::kCheckUsage);
      return 0;
    }
    if (command == "check") return normlab::tool::check_command(argc, argv, 2);
    if (command == "list") return list();
    if (command == "--help" || command == "help") {
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
