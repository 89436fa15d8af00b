#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a normlab_torch call's CPU time goes: each step of rms_norm's eager path timed alone,
1 x 4096 bf16, the GPU held by a busy-wait so that only the CPU's time counts.

    NORMLAB_CAPI=.../libnormlab_capi.so python3 breakdown.py
"""
import ctypes
import statistics
import time

import torch
import torch.nn.functional as F

import normlab_torch as nt
from normlab_torch import capi, ops

CALLS, BATCHES = 500, 7


def cpu_us(call):
    for _ in range(50):
        call()
    torch.cuda.synchronize()
    per_call = []
    for _ in range(BATCHES):
        torch.cuda._sleep(60_000_000)  # about 30 ms: every call below queues behind it
        start = time.perf_counter()
        for _ in range(CALLS):
            call()
        per_call.append((time.perf_counter() - start) / CALLS * 1e6)
        torch.cuda.synchronize()
    return statistics.median(per_call)


x = torch.randn(1, 4096, device="cuda").to(torch.bfloat16)
w = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
b = torch.zeros(4096, device="cuda", dtype=torch.bfloat16)
y, rstd = torch.empty_like(x), torch.empty(1, device="cuda")
call = capi.NormlabCall(op=capi.OP_RMSNORM, dtype=capi.DTYPE_BF16, weight_dtype=capi.DTYPE_BF16,
                        rows=1, cols=4096, eps=1e-5, x=x.data_ptr(), x_stride=4096,
                        y=y.data_ptr(), y_stride=4096, weight=w.data_ptr(), rstd=rstd.data_ptr())
run, error = ops._library.dll.normlab_run, ctypes.create_string_buffer(1024)
pointer, stream = ctypes.byref(call), torch.cuda.current_stream().cuda_stream

steps = {
    "F.rms_norm": lambda: F.rms_norm(x, (4096,), w, 1e-5),
    "F.layer_norm": lambda: F.layer_norm(x, (4096,), w, b, 1e-5),
    "nt.rms_norm": lambda: nt.rms_norm(x, w, 1e-5),
    "nt.layer_norm": lambda: nt.layer_norm(x, w, b, 1e-5),
    "_rms_norm_body": lambda: ops._rms_norm_body(x, w, 1e-5, False),
    "_eager + _records_grad": lambda: ops._eager(x) and ops._records_grad(x, w),
    "_check_norm": lambda: ops._check_norm(x, w, None, 1e-5),
    "torch.empty(x.shape, dtype, device)": lambda: torch.empty(x.shape, dtype=x.dtype,
                                                                device=x.device),
    "torch.empty_like(x)": lambda: torch.empty_like(x),
    "_per_row(x)": lambda: ops._per_row(x),
    "torch.empty(rows, dtype=float32, device)": lambda: torch.empty(1, dtype=torch.float32,
                                                                     device=x.device),
    "x.new_empty(4096)": lambda: x.new_empty(4096),
    "NormlabCall(7 positional)": lambda: capi.NormlabCall(3, 2, 2, False, 1, 4096, 1e-5),
    "x.data_ptr()": lambda: x.data_ptr(),
    "_row_stride": lambda: ops._row_stride("x", x),
    "x.get_device() + current_device()": lambda: x.get_device() == torch.cuda.current_device(),
    "_current_stream(0)": lambda: ops._current_stream(0),
    "torch.cuda.current_stream().cuda_stream": lambda: torch.cuda.current_stream().cuda_stream,
    "normlab_run through ctypes, ready call": lambda: run(pointer, stream, error, 1024),
    "Library.run(ready call)": lambda: ops._library.run(call, stream, None),
    "_plain(x, w)": lambda: ops._plain(x, w),
    "_plain_call(rmsnorm)": lambda: ops._plain_call(capi.OP_RMSNORM, 1e-5, False, x, y, w),
    "_launch(ready call)": lambda: ops._launch(call, x),
    "_run(rmsnorm)": lambda: ops._run(capi.OP_RMSNORM, 1e-5, False, x=x, y=y, weight=w,
                                      rstd=rstd),
}
print(f"{torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}: CPU us per call, "
      f"1 x 4096 bf16, the GPU held")
for name, step in steps.items():
    print(f"  {name:<42} {cpu_us(step):7.2f}")
