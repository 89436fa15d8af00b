// SPDX-License-Identifier: Apache-2.0
/// @file runner.hpp
/// @brief Runs a registered kernel on one case: builds inputs, poisons outputs, launches,
/// compares every output with the float64 reference, and times it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "normlab/compare.hpp"
#include "normlab/kernel.hpp"
#include "normlab/ops.hpp"
#include "normlab/random.hpp"
#include "normlab/timing.hpp"

namespace normlab {

/// One problem: shape, inputs and the options of the call.
struct Case {
  Op op = Op::rmsnorm;
  Shape shape;
  InputSpec input;  ///< x (and residual: same distribution, another seed)
  float eps = 1e-5f;
  bool weight_plus_one = false;
  std::int64_t pad = 0;       ///< guard elements after each row of every activation
  std::int64_t misalign = 0;  ///< elements every activation's base pointer is shifted by
  /// x's rows in two levels (a head view, NormCall::x_group_rows): groups of group_rows rows
  /// cols + pad apart, each group followed by group_gap poisoned elements before the next (the
  /// other heads of a fused projection). 0 or 1: one level. The norms and their backward only.
  std::int64_t group_rows = 0;
  std::int64_t group_gap = 0;
  bool in_place = false;    ///< y over x; for add + norm, h over the residual
  bool statistics = false;  ///< ask for per-row mean / rstd (kernels that write them)
  /// Backward ops: also pass dresidual, the gradient reaching h from the residual stream (fused
  /// add + norm backward), which the kernel adds into dx.
  bool residual_gradient = false;

  /// "rmsnorm fp32 2048x8192 normal seed=1 ..." for reports.
  std::string describe() const;
};

/// What @p c asks of a kernel (KernelEntry::refusal), its activations laid out as the Workspace
/// lays them: misalign elements past a 256-byte boundary, rows cols + pad elements apart (x's
/// groups group_stride(c) apart). The compute capability is left to the current device.
Requirements requirements_of(const Case& c);

/// The reports of every output of one verified case.
struct CaseResult {
  std::string kernel;
  std::string case_description;
  std::vector<CompareReport> reports;
  bool passed() const;
  std::string describe() const;
};

/// Timing and bandwidth of one kernel on one case.
struct Measurement {
  Timing timing;
  double bytes = 0.0;  ///< by the kernel's bytes model
  double gbps = 0.0;
  double percent_of_roof = 0.0;
};

/// The inputs of one case on the host and the device, built once from the op's table of
/// tensors (op_tensors.hpp) and shared by every kernel run on it (the tour runs a dozen
/// kernels on one problem); verify() compares the results with the float64 reference.
class Workspace {
 public:
  explicit Workspace(const Case& c);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const Case& problem() const noexcept;
  /// Restores inputs a previous in-place run overwrote, poisons every result, its guard bands
  /// and the kernel's scratch, runs @p kernel once and compares every result with the float64
  /// reference. Throws std::invalid_argument naming what the kernel lacks when it refuses the
  /// case.
  CaseResult verify(const KernelEntry& kernel);
  /// Times @p kernel (outputs not checked).
  Measurement time(const KernelEntry& kernel, const TimingOptions& options);
  /// Writes the inputs and the results of the last verify() into @p directory (created if
  /// missing) as raw little-endian files in their dtypes, one per tensor of the op's table
  /// that the case has (x.bin, residual.bin, weight.bin, bias.bin, y.bin, residual_out.bin,
  /// dy.bin, dx.bin, ...; activations rows x stride elements (x in groups: group_stride a group,
  /// with group_rows and group_stride in its entry), parameters cols, statistics
  /// rows), and case.json naming the op, dtypes, shape, eps and each file's dtype, rows, cols
  /// and stride. Throws std::logic_error before the first verify(), std::runtime_error when a
  /// file cannot be written.
  void write_files(const std::string& directory) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Workspace(c).verify(kernel): runs @p kernel once on @p c with poisoned results and compares
/// every result with the float64 reference. Throws std::invalid_argument when the kernel
/// refuses the case.
CaseResult verify(const KernelEntry& kernel, const Case& c);

/// Times @p kernel on @p c (random inputs, outputs not checked: call verify for that).
Measurement measure(const KernelEntry& kernel, const Case& c, const TimingOptions& options = {});

/// A Case for @p op on a rows x cols problem in @p dtype with the defaults the tour uses
/// (weight; LayerNorm and its backward also bias; normal inputs, seed 1).
Case default_case(Op op, std::int64_t rows, std::int64_t cols, DType dtype = DType::f32);

}  // namespace normlab
