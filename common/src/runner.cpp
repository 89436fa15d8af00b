// SPDX-License-Identifier: Apache-2.0
#include "normlab/runner.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/json.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/roofline.hpp"

namespace normlab {

namespace {

void require_support(const KernelEntry& kernel, const Case& c) {
  const std::string refusal = kernel.refusal(c);
  if (!refusal.empty()) {
    throw std::invalid_argument("kernel " + kernel.name + " refuses " + c.describe() + ": " +
                                refusal);
  }
}

}  // namespace

struct Workspace::State {
  Case problem;
  HostTensors inputs;   // as made; restored on the device before each in-place run
  HostTensors results;  // what the last verify() read back
  std::array<PlacedMatrix, kTensorCount> device;  // inputs and results not written in place
  bool verified = false;
  bool inputs_overwritten = false;  // by an in-place run since they were uploaded

  bool present_in(const TensorSpec& spec) const { return present(spec, problem); }
  // The device matrix @p spec is read from or written to: its own, or its input's in place.
  PlacedMatrix& device_of(const TensorSpec& spec) {
    const bool over_input = problem.in_place && spec.in_place_over.has_value();
    return device[static_cast<std::size_t>(over_input ? *spec.in_place_over : spec.tensor)];
  }
  NormCall call_for(void* scratch, std::size_t scratch_bytes);
};

Workspace::Workspace(const Case& c) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.problem = c;
  s.inputs = make_inputs(c);
  s.results = make_results(c);
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!s.present_in(spec) || (c.in_place && spec.in_place_over)) continue;
    // Activations sit misaligned inside their poisoned allocation; parameters and statistics
    // at its start.
    const std::int64_t shift = spec.extent == Extent::matrix ? c.misalign : 0;
    s.device[static_cast<std::size_t>(spec.tensor)] =
        spec.role == Role::input ? PlacedMatrix(at(s.inputs, spec.tensor), shift)
                                 : PlacedMatrix::poisoned_like(at(s.results, spec.tensor), shift);
  }
}

Workspace::~Workspace() = default;

Requirements requirements_of(const Case& c) {
  // Every activation is placed misalign elements past a cudaMalloc'd (256-byte) address; dy's
  // and the residual stream's elements may be wider or narrower than the others'
  // (Shape::dy_dtype, Shape::residual_dtype).
  const auto element = static_cast<std::uint64_t>(
      std::min({size_of(c.shape.dtype),
                is_backward(c.op) ? size_of(dy_dtype_of(c.shape)) : size_of(c.shape.dtype),
                is_add(c.op) ? size_of(residual_dtype_of(c.shape)) : size_of(c.shape.dtype)}));
  const bool two_level = c.group_rows > 1;
  const int pitch = alignment_of(static_cast<std::uint64_t>(activation_stride(c)) * element);
  return {
      .op = c.op,
      .shape = c.shape,
      .weight_plus_one = c.weight_plus_one,
      .in_place = c.in_place,
      .strided = c.pad != 0 || two_level,
      .two_level_rows = two_level,
      .base_alignment = alignment_of(static_cast<std::uint64_t>(c.misalign) * element),
      .pitch_alignment =
          two_level
              ? std::min(pitch, alignment_of(static_cast<std::uint64_t>(group_stride(c)) * element))
              : pitch,
      .statistics = c.statistics,
      .residual_gradient = c.residual_gradient};
}

std::string KernelEntry::refusal(const Case& c) const {
  return refusal(requirements_of(c));
}

const Case& Workspace::problem() const noexcept {
  return state_->problem;
}

NormCall Workspace::State::call_for(void* scratch, std::size_t scratch_bytes) {
  const Case& c = problem;
  NormCall call;
  call.op = c.op;
  call.dtype = c.shape.dtype;
  call.weight_dtype = c.shape.weight_dtype;
  if (is_backward(c.op)) call.dy_dtype = c.shape.dy_dtype;
  if (is_add(c.op)) call.residual_dtype = c.shape.residual_dtype;
  call.rows = c.shape.rows;
  call.cols = c.shape.cols;
  call.eps = c.eps;
  call.weight_plus_one = c.weight_plus_one;
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!present_in(spec)) continue;
    const std::int64_t stride = spec.extent == Extent::matrix ? activation_stride(c) : 0;
    bind(call, spec.tensor, device_of(spec).data(), stride);
  }
  if (c.group_rows > 1) {
    call.x_group_rows = c.group_rows;
    call.x_group_stride = group_stride(c);
  }
  call.scratch = scratch;
  call.scratch_bytes = scratch_bytes;
  return call;
}

CaseResult Workspace::verify(const KernelEntry& kernel) {
  State& s = *state_;
  const Case& c = s.problem;
  require_support(kernel, c);
  const std::size_t scratch_bytes = kernel.scratch_bytes ? kernel.scratch_bytes(c.shape) : 0;
  DeviceBuffer<unsigned char> scratch(scratch_bytes);
  scratch.poison();
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!s.present_in(spec)) continue;
    if (spec.role == Role::input) {
      // Restores what an earlier in-place run overwrote (its guard bands are poison).
      if (s.inputs_overwritten)
        s.device[static_cast<std::size_t>(spec.tensor)].upload(at(s.inputs, spec.tensor));
    } else if (!(c.in_place && spec.in_place_over)) {
      s.device_of(spec).poison();
    }
  }
  s.inputs_overwritten = c.in_place;
  kernel.launch(s.call_for(scratch.data(), scratch_bytes), nullptr);
  NORMLAB_CHECK(cudaDeviceSynchronize());
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (spec.role != Role::input && s.present_in(spec))
      s.device_of(spec).download(at(s.results, spec.tensor));
  }
  s.verified = true;
  return {kernel.name, c.describe(), compare_results(c, s.inputs, s.results)};
}

Measurement Workspace::time(const KernelEntry& kernel, const TimingOptions& options) {
  State& s = *state_;
  require_support(kernel, s.problem);
  DeviceBuffer<unsigned char> scratch(kernel.scratch_bytes ? kernel.scratch_bytes(s.problem.shape)
                                                           : 0);
  const NormCall call = s.call_for(scratch.data(), scratch.bytes());
  s.inputs_overwritten = s.problem.in_place;
  Measurement m;
  m.timing = time_on_device([&](cudaStream_t stream) { kernel.launch(call, stream); }, options);
  m.bytes = bytes_moved(kernel.op, s.problem.shape);
  m.gbps = gigabytes_per_second(m.bytes, m.timing.median_ms);
  m.percent_of_roof = percent_of_copy_roof(m.gbps);
  return m;
}

void Workspace::write_files(const std::string& directory) const {
  const State& s = *state_;
  const Case& c = s.problem;
  if (!s.verified) throw std::logic_error("Workspace::write_files: nothing has been verified yet");
  std::filesystem::create_directories(directory);
  auto write = [&](const std::string& file, const void* data, std::size_t bytes) {
    const std::string path = (std::filesystem::path(directory) / file).string();
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw std::runtime_error("Workspace::write_files: cannot write " + path);
  };
  // Every file is a HostMatrix: its bytes as they are in memory (all normlab hosts are
  // little-endian), described in case.json.
  std::ostringstream text;
  JsonWriter json(text);
  json.begin_object()
      .member("op", name_of(c.op))
      .member("dtype", name_of(c.shape.dtype))
      .member("weight_dtype", name_of(c.shape.weight_dtype))
      .member("rows", c.shape.rows)
      .member("cols", c.shape.cols)
      .member("stride", activation_stride(c))
      .member("eps", static_cast<double>(c.eps))
      .member("gemma", c.weight_plus_one)
      .member("in_place", c.in_place)
      .key("files")
      .begin_object();
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!present(spec, c)) continue;
    const char* name = name_of(spec.tensor);
    const HostMatrix& m = at(spec.role == Role::input ? s.inputs : s.results, spec.tensor);
    write(std::string(name) + ".bin", m.data(), m.bytes());
    json.key(name)
        .begin_object()
        .member("dtype", name_of(m.dtype()))
        .member("rows", m.rows())
        .member("cols", m.cols())
        .member("stride", m.stride());
    if (m.group_rows() > 1)
      json.member("group_rows", m.group_rows()).member("group_stride", m.group_stride());
    json.end_object();
  }
  json.end_object().end_object();
  text << "\n";
  write("case.json", text.str().data(), text.str().size());
}

bool CaseResult::passed() const {
  for (const CompareReport& r : reports) {
    if (!r.passed()) return false;
  }
  return !reports.empty();
}

std::string CaseResult::describe() const {
  std::ostringstream out;
  out << kernel << " on " << case_description << ": " << (passed() ? "PASS" : "FAIL") << "\n";
  for (const CompareReport& r : reports)
    out << "  " << r.describe() << "\n";
  return out.str();
}

std::string Case::describe() const {
  std::ostringstream out;
  out << name_of(op) << " " << name_of(shape.dtype) << " " << shape.rows << "x" << shape.cols;
  if (shape.weight_dtype != shape.dtype) out << " weight=" << name_of(shape.weight_dtype);
  if (dy_dtype_of(shape) != shape.dtype) out << " dy=" << name_of(dy_dtype_of(shape));
  if (residual_dtype_of(shape) != shape.dtype)
    out << " residual=" << name_of(residual_dtype_of(shape));
  if (!shape.weight) out << " no-weight";
  if (shape.bias) out << " bias";
  out << " " << name_of(input.distribution) << "(mean " << input.mean << ", scale " << input.scale
      << ") seed=" << input.seed << " eps=" << eps;
  if (weight_plus_one) out << " (1+w)";
  if (pad) out << " pad=" << pad;
  if (misalign) out << " misalign=" << misalign;
  if (group_rows > 1) out << " groups=" << group_rows << " gap=" << group_gap;
  if (in_place) out << " in-place";
  if (statistics) out << " statistics";
  if (residual_gradient) out << " dresidual";
  return out.str();
}

CaseResult verify(const KernelEntry& kernel, const Case& c) {
  return Workspace(c).verify(kernel);
}

Measurement measure(const KernelEntry& kernel, const Case& c, const TimingOptions& options) {
  return Workspace(c).time(kernel, options);
}

Case default_case(Op op, std::int64_t rows, std::int64_t cols, DType dtype) {
  Case c;
  c.op = op;
  c.shape = {.rows = rows,
             .cols = cols,
             .dtype = dtype,
             .weight_dtype = dtype,
             .weight = op != Op::copy,
             .bias = takes_bias(op)};
  return c;
}

}  // namespace normlab
