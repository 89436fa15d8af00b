#include "normlab/runner.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "normlab/reference.hpp"
#include "normlab/roofline.hpp"

namespace normlab {

struct Workspace::State {
  Case problem;
  std::int64_t stride = 0;
  HostMatrix x, residual, weight, bias;
  ReferenceForward want;
  PlacedMatrix x_device, residual_device, y_device, residual_out_device, weight_device, bias_device;
  DeviceBuffer<float> mean_device, rstd_device;
  bool checked = false;
  HostMatrix y_out, residual_out;  // what the last check() read back

  HostMatrix output_like(DType dtype, std::int64_t cols, std::int64_t stride_) const {
    return HostMatrix(dtype, problem.shape.rows, cols, stride_);
  }
  NormCall call_for(const KernelEntry& kernel) const;
};

Workspace::Workspace(const Case& c) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.problem = c;
  const Shape& shape = c.shape;
  if (c.op == Op::rmsnorm_backward || c.op == Op::layernorm_backward) {
    throw std::invalid_argument("Workspace: backward ops have no runner yet");
  }
  s.stride = shape.cols + c.pad;

  s.x = HostMatrix(shape.dtype, shape.rows, shape.cols, s.stride);
  fill_random(s.x, c.input);
  ReferenceParams params{.rows = shape.rows, .cols = shape.cols, .eps = c.eps};
  std::vector<double> weight_values, bias_values;
  if (shape.weight && c.op != Op::copy) {
    s.weight = HostMatrix(shape.weight_dtype, 1, shape.cols);
    // Weights near 1 (or near 0 for the 1 + w form), all different: a kernel that drops or
    // misplaces them fails.
    fill_random(s.weight, {.distribution = Distribution::uniform,
                           .mean = c.weight_plus_one ? 0.0 : 1.0,
                           .scale = 0.3,
                           .seed = c.input.seed + 3});
    weight_values = s.weight.to_dense();
    params.weight = weight_values;
    params.weight_plus_one = c.weight_plus_one;
    s.weight_device = PlacedMatrix(s.weight, 0);
  }
  if (shape.bias && is_layernorm(c.op)) {
    s.bias = HostMatrix(shape.weight_dtype, 1, shape.cols);
    fill_random(s.bias,
                {.distribution = Distribution::normal, .scale = 0.5, .seed = c.input.seed + 4});
    bias_values = s.bias.to_dense();
    params.bias = bias_values;
    s.bias_device = PlacedMatrix(s.bias, 0);
  }

  const std::vector<double> x_dense = s.x.to_dense();
  if (is_add(c.op)) {
    s.residual = HostMatrix(shape.dtype, shape.rows, shape.cols, s.stride);
    InputSpec residual_spec = c.input;
    residual_spec.seed += 1;
    fill_random(s.residual, residual_spec);
    const std::vector<double> r_dense = s.residual.to_dense();
    s.want = c.op == Op::add_rmsnorm
                 ? add_rmsnorm_forward(x_dense, r_dense, params, rounding_for(shape.dtype))
                 : add_layernorm_forward(x_dense, r_dense, params, rounding_for(shape.dtype));
    s.residual_device = PlacedMatrix(s.residual, c.misalign);
    if (!c.in_place)
      s.residual_out_device =
          PlacedMatrix(s.output_like(shape.dtype, shape.cols, s.stride), c.misalign);
  } else if (c.op == Op::copy) {
    s.want.y = x_dense;
  } else {
    s.want =
        c.op == Op::rmsnorm ? rmsnorm_forward(x_dense, params) : layernorm_forward(x_dense, params);
  }
  s.x_device = PlacedMatrix(s.x, c.misalign);
  if (!c.in_place || is_add(c.op)) {
    s.y_device = PlacedMatrix(s.output_like(shape.dtype, shape.cols, s.stride), c.misalign);
  }
  if (c.statistics) {
    s.mean_device = DeviceBuffer<float>(static_cast<std::size_t>(shape.rows));
    s.rstd_device = DeviceBuffer<float>(static_cast<std::size_t>(shape.rows));
  }
}

Workspace::~Workspace() = default;

std::string KernelEntry::refusal(const Case& c) const {
  const Shape& s = c.shape;
  if (op != c.op) return std::string("runs ") + name_of(op) + ", not " + name_of(c.op);
  if (can.min_compute_capability > 0) {
    if (const int gpu = compute_capability(); gpu < can.min_compute_capability)
      return "needs sm_" + std::to_string(can.min_compute_capability) +
             " or newer, this GPU is sm_" + std::to_string(gpu);
  }
  bool dtype_ok = false;
  for (DType d : can.dtypes)
    dtype_ok = dtype_ok || d == s.dtype;
  if (!dtype_ok) return std::string("no ") + name_of(s.dtype) + " tensors";
  if (op != Op::copy && s.weight_dtype != s.dtype &&
      !(can.fp32_parameters && s.weight_dtype == DType::f32))
    return std::string("no ") + name_of(s.weight_dtype) + " parameters with " + name_of(s.dtype) +
           " tensors";
  if (op != Op::copy && !can.optional_parameters && (!s.weight || (is_layernorm(op) && !s.bias)))
    return "needs a weight" + std::string(is_layernorm(op) ? " and a bias" : "");
  if (can.max_cols != 0 && s.cols > can.max_cols)
    return "rows wider than " + std::to_string(can.max_cols);
  if (can.max_rows != 0 && s.rows > can.max_rows)
    return "more than " + std::to_string(can.max_rows) + " rows";
  if (c.weight_plus_one && !can.weight_plus_one) return "no (1 + w) scaling";
  if (c.in_place && !can.in_place) return "not in place";
  if (c.pad != 0 && !can.strided) return "no row stride other than cols";
  if (can.alignment_bytes != 0) {
    const std::int64_t element = size_of(s.dtype);
    if ((c.misalign * element) % can.alignment_bytes != 0 ||
        ((s.cols + c.pad) * element) % can.alignment_bytes != 0)
      return "needs rows aligned to " + std::to_string(can.alignment_bytes) + " bytes";
  }
  return {};
}

const Case& Workspace::problem() const noexcept {
  return state_->problem;
}

NormCall Workspace::State::call_for(const KernelEntry& kernel) const {
  const State& s = *this;
  const Case& c = s.problem;
  NormCall call;
  call.op = c.op;
  call.dtype = c.shape.dtype;
  call.weight_dtype = c.shape.weight_dtype;
  call.rows = c.shape.rows;
  call.cols = c.shape.cols;
  call.eps = c.eps;
  call.x = s.x_device.data();
  call.x_stride = s.stride;
  const bool y_over_x = c.in_place && !is_add(c.op);
  call.y = y_over_x ? s.x_device.data() : s.y_device.data();
  call.y_stride = s.stride;
  if (is_add(c.op)) {
    call.residual = s.residual_device.data();
    call.residual_stride = s.stride;
    call.residual_out = c.in_place ? s.residual_device.data() : s.residual_out_device.data();
    call.residual_out_stride = s.stride;
  }
  call.weight = c.shape.weight ? s.weight_device.data() : nullptr;
  call.bias = c.shape.bias ? s.bias_device.data() : nullptr;
  call.weight_plus_one = c.weight_plus_one;
  if (c.statistics && kernel.can.writes_statistics) {
    call.mean = is_layernorm(c.op) ? s.mean_device.data() : nullptr;
    call.rstd = s.rstd_device.data();
  }
  return call;
}

namespace {

void require_support(const KernelEntry& kernel, const Case& c) {
  const std::string refusal = kernel.refusal(c);
  if (!refusal.empty()) {
    throw std::invalid_argument("kernel " + kernel.name + " refuses " + c.describe() + ": " +
                                refusal);
  }
}

}  // namespace

CaseResult Workspace::check(const KernelEntry& kernel) {
  State& s = *state_;
  const Case& c = s.problem;
  require_support(kernel, c);
  // Inputs that a previous in-place run overwrote are restored; outputs are poisoned.
  if (c.in_place) {
    s.x_device.upload(s.x);
    if (is_add(c.op)) s.residual_device.upload(s.residual);
  }
  const HostMatrix poisoned = s.output_like(c.shape.dtype, c.shape.cols, s.stride);
  if (!(c.in_place && !is_add(c.op))) s.y_device.upload(poisoned);
  if (is_add(c.op) && !c.in_place) s.residual_out_device.upload(poisoned);
  s.mean_device.poison();
  s.rstd_device.poison();

  const NormCall call = s.call_for(kernel);
  kernel.launch(call, nullptr);
  NORMLAB_CHECK(cudaDeviceSynchronize());

  CaseResult result{kernel.name, c.describe(), {}};
  const Tolerance tolerance = tolerance_for(c.shape.dtype);
  const bool y_over_x = c.in_place && !is_add(c.op);
  HostMatrix y = s.output_like(c.shape.dtype, c.shape.cols, s.stride);
  (y_over_x ? s.x_device : s.y_device).download(y);
  result.reports.push_back(compare(y, s.want.y, tolerance, "y", !y_over_x));
  s.y_out = std::move(y);
  if (is_add(c.op)) {
    HostMatrix h = s.output_like(c.shape.dtype, c.shape.cols, s.stride);
    (c.in_place ? s.residual_device : s.residual_out_device).download(h);
    result.reports.push_back(compare(h, s.want.residual, tolerance, "residual", !c.in_place));
    s.residual_out = std::move(h);
  }
  s.checked = true;
  if (call.rstd != nullptr) {
    HostMatrix rstd(DType::f32, c.shape.rows, 1);
    s.rstd_device.download(rstd.data());
    result.reports.push_back(compare(rstd, s.want.rstd, tolerance, "rstd"));
  }
  if (call.mean != nullptr) {
    HostMatrix mean(DType::f32, c.shape.rows, 1);
    s.mean_device.download(mean.data());
    result.reports.push_back(compare(mean, s.want.mean, tolerance, "mean"));
  }
  return result;
}

Measurement Workspace::time(const KernelEntry& kernel, const TimingOptions& options) {
  require_support(kernel, state_->problem);
  const NormCall call = state_->call_for(kernel);
  Measurement m;
  m.timing = time_on_device([&](cudaStream_t stream) { kernel.launch(call, stream); }, options);
  m.bytes = bytes_moved(kernel.op, state_->problem.shape);
  m.gbps = gigabytes_per_second(m.bytes, m.timing.median_ms);
  m.percent_of_roof = percent_of_copy_roof(m.gbps);
  return m;
}

void Workspace::write_files(const std::string& directory) const {
  const State& s = *state_;
  const Case& c = s.problem;
  if (!s.checked) throw std::logic_error("Workspace::write_files: nothing has been checked yet");
  std::filesystem::create_directories(directory);
  auto write = [&](const char* file, const void* data, std::size_t bytes) {
    const std::string path = (std::filesystem::path(directory) / file).string();
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw std::runtime_error("Workspace::write_files: cannot write " + path);
  };
  // Every file is a HostMatrix: its bytes as they are in memory (all normlab hosts are
  // little-endian), described in case.json.
  std::ostringstream files;
  auto add = [&](const char* name, const HostMatrix& m) {
    if (m.cols() == 0) return;  // default-constructed: not part of this case
    write((std::string(name) + ".bin").c_str(), m.data(), m.bytes());
    files << (files.tellp() > 0 ? ", " : "") << "\"" << name << "\": {\"dtype\": \""
          << name_of(m.dtype()) << "\", \"rows\": " << m.rows() << ", \"cols\": " << m.cols()
          << ", \"stride\": " << m.stride() << "}";
  };
  add("x", s.x);
  add("residual", s.residual);
  add("weight", s.weight);
  add("bias", s.bias);
  add("y", s.y_out);
  add("residual_out", s.residual_out);
  char eps[32];
  std::snprintf(eps, sizeof eps, "%.9g", static_cast<double>(c.eps));
  std::ostringstream json;
  json << "{\"op\": \"" << name_of(c.op) << "\", \"dtype\": \"" << name_of(c.shape.dtype)
       << "\", \"weight_dtype\": \"" << name_of(c.shape.weight_dtype)
       << "\", \"rows\": " << c.shape.rows << ", \"cols\": " << c.shape.cols
       << ", \"stride\": " << s.stride << ", \"eps\": " << eps
       << ", \"gemma\": " << (c.weight_plus_one ? "true" : "false")
       << ", \"in_place\": " << (c.in_place ? "true" : "false") << ", \"files\": {" << files.str()
       << "}}\n";
  const std::string text = json.str();
  write("case.json", text.data(), text.size());
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
  static const char* const kDistributions[] = {"normal", "uniform", "heavy"};
  out << name_of(op) << " " << name_of(shape.dtype) << " " << shape.rows << "x" << shape.cols;
  if (shape.weight_dtype != shape.dtype) out << " weight=" << name_of(shape.weight_dtype);
  if (!shape.weight) out << " no-weight";
  if (shape.bias) out << " bias";
  out << " " << kDistributions[static_cast<int>(input.distribution)] << "(mean " << input.mean
      << ", scale " << input.scale << ") seed=" << input.seed << " eps=" << eps;
  if (weight_plus_one) out << " (1+w)";
  if (pad) out << " pad=" << pad;
  if (misalign) out << " misalign=" << misalign;
  if (in_place) out << " in-place";
  if (statistics) out << " statistics";
  return out.str();
}

CaseResult verify(const KernelEntry& kernel, const Case& c) {
  return Workspace(c).check(kernel);
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
             .bias = is_layernorm(op)};
  return c;
}

}  // namespace normlab
