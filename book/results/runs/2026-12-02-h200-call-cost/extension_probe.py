#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The other way to reach normlab from PyTorch, measured before choosing: a compiled PyTorch
extension (an op registered in C++, run by PyTorch's dispatcher, which allocates the outputs and
fills the call in C++) against normlab_torch's ctypes path, per call on the CPU, in one process.

    NORMLAB_CAPI=build/gpu/python/libnormlab_capi.so \
        python3 extension_probe.py [--calls 2000] [--batches 7]

It compiles the extension with torch.utils.cpp_extension (ninja and the CUDA Toolkit needed),
linking libnormlab_capi.so, and times rms_norm and layer_norm on 1 x 4096 bf16 both ways; the
two must give the same bits.
"""
import argparse
import sys
import time
from pathlib import Path

import torch
from torch.utils import cpp_extension

import normlab_torch as nt

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "python"))
from bench_overhead import median_us_per_call  # noqa: E402  (the same timing as the tool's)

SOURCE = r"""
#include <ATen/cuda/CUDAContext.h>
#include <torch/library.h>

#include "normlab_capi.h"

namespace {

normlab_call base(const at::Tensor& x, int op, double eps) {
  normlab_call c{};
  c.op = op;
  c.dtype = x.scalar_type() == at::kBFloat16 ? NORMLAB_DTYPE_BF16
            : x.scalar_type() == at::kHalf   ? NORMLAB_DTYPE_F16
                                             : NORMLAB_DTYPE_F32;
  c.weight_dtype = c.dtype;
  c.cols = x.size(-1);
  c.rows = x.numel() / c.cols;
  c.eps = static_cast<float>(eps);
  c.x = x.data_ptr();
  c.x_stride = c.cols;
  return c;
}

void launch(const normlab_call& c) {
  char error[1024];
  if (normlab_run(&c, at::cuda::getCurrentCUDAStream().stream(), error, sizeof error) != 0)
    TORCH_CHECK(false, error);
}

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w, double eps) {
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous(), "contiguous only in this probe");
  at::Tensor y = at::empty_like(x);
  at::Tensor rstd = at::empty(x.numel() / x.size(-1), x.options().dtype(at::kFloat));
  normlab_call c = base(x, NORMLAB_OP_RMSNORM, eps);
  c.y = y.data_ptr();
  c.y_stride = c.cols;
  c.weight = w.data_ptr();
  c.rstd = rstd.data_ptr<float>();
  launch(c);
  return y;
}

at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, double eps) {
  TORCH_CHECK(x.is_contiguous() && w.is_contiguous(), "contiguous only in this probe");
  at::Tensor y = at::empty_like(x);
  at::Tensor mean = at::empty(x.numel() / x.size(-1), x.options().dtype(at::kFloat));
  at::Tensor rstd = at::empty_like(mean);
  normlab_call c = base(x, NORMLAB_OP_LAYERNORM, eps);
  c.y = y.data_ptr();
  c.y_stride = c.cols;
  c.weight = w.data_ptr();
  c.bias = b.data_ptr();
  c.mean = mean.data_ptr<float>();
  c.rstd = rstd.data_ptr<float>();
  launch(c);
  return y;
}

}  // namespace

TORCH_LIBRARY(normlab_probe, m) {
  m.def("rms_norm(Tensor x, Tensor w, float eps) -> Tensor");
  m.def("layer_norm(Tensor x, Tensor w, Tensor b, float eps) -> Tensor");
}
TORCH_LIBRARY_IMPL(normlab_probe, CUDA, m) {
  m.impl("rms_norm", &rms_norm);
  m.impl("layer_norm", &layer_norm);
}
"""


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=7)
    args = parser.parse_args(argv)
    library = Path(nt.library_path())
    header = Path(__file__).resolve().parents[4] / "python" / "normlab_torch" / "csrc"
    started = time.perf_counter()
    cpp_extension.load_inline(
        name="normlab_probe", cpp_sources=[SOURCE], extra_include_paths=[str(header)],
        extra_ldflags=[str(library), f"-Wl,-rpath,{library.parent}"], with_cuda=True,
        is_python_module=False, verbose=False)
    print(f"extension compiled in {time.perf_counter() - started:.0f} s")
    x = torch.randn(1, 4096, device="cuda").to(torch.bfloat16)
    w = (1 + 0.1 * torch.randn(4096, device="cuda")).to(torch.bfloat16)
    b = (0.1 * torch.randn(4096, device="cuda")).to(torch.bfloat16)
    probe = torch.ops.normlab_probe
    assert torch.equal(probe.rms_norm(x, w, 1e-5), nt.rms_norm(x, w, 1e-5))
    assert torch.equal(probe.layer_norm(x, w, b, 1e-5), nt.layer_norm(x, w, b, 1e-5))
    F = torch.nn.functional
    rows = [
        ("rms_norm", lambda: nt.rms_norm(x, w, 1e-5), lambda: probe.rms_norm(x, w, 1e-5),
         lambda: F.rms_norm(x, (4096,), w, 1e-5)),
        ("layer_norm", lambda: nt.layer_norm(x, w, b, 1e-5),
         lambda: probe.layer_norm(x, w, b, 1e-5), lambda: F.layer_norm(x, (4096,), w, b, 1e-5)),
    ]
    print(f"{torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}; 1 x 4096 bf16, "
          f"CPU us per call, median of {args.batches} batches of {args.calls}")
    print(f"{'op':<12}{'ctypes (normlab_torch)':>24}{'compiled extension':>20}{'torch eager':>14}")
    for name, ctypes_path, extension, eager in rows:
        cells = [median_us_per_call(torch, f, args.calls, args.batches)
                 for f in (ctypes_path, extension, eager)]
        print(f"{name:<12}" + "".join(f"{c:>{w}.2f}" for c, w in zip(cells, (24, 20, 14))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
