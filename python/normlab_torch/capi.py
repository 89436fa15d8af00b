# SPDX-License-Identifier: Apache-2.0
"""libnormlab_capi.so through ctypes: the C struct normlab_call mirrored field for field, the
library found and checked against that mirror, and its statuses turned into Python exceptions.

This module needs neither PyTorch nor a GPU (and imports nothing from its package), so that
    python3 python/normlab_torch/capi.py --self-test [LIBRARY]
checks the library and this mirror on any machine that built them (ctest normlab_capi_self_test).
"""
import ctypes
import os
import sys
import threading
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
REPO = PACKAGE.parents[1]
LIBRARY_NAME = "libnormlab_capi.so"
# Where the library is looked for in a repository checkout when NORMLAB_CAPI is not set: the
# presets' build directories.
BUILD_DIRECTORIES = ("build/gpu/python", "build/default/python", "build/library/python")
ABI_VERSION = 4  # NORMLAB_CAPI_ABI_VERSION of normlab_capi.h

# enum normlab_op, enum normlab_dtype, enum normlab_status (normlab_capi.h).
OP_RMSNORM, OP_LAYERNORM, OP_ADD_RMSNORM, OP_ADD_LAYERNORM = 1, 2, 3, 4
OP_RMSNORM_BACKWARD, OP_LAYERNORM_BACKWARD = 5, 6
DTYPE_F32, DTYPE_F16, DTYPE_BF16 = 0, 1, 2
OK, INVALID_ARGUMENT, RUNTIME_ERROR, SCRATCH_SHORT, INTERNAL_ERROR = 0, 1, 2, 3, 4

ERROR_CAPACITY = 1024  # bytes of message kept; the dispatcher's refusals list every candidate


class NormlabCall(ctypes.Structure):
    """struct normlab_call of normlab_capi.h, in its order (Library checks the offsets)."""
    _fields_ = [
        ("op", ctypes.c_int32), ("dtype", ctypes.c_int32), ("weight_dtype", ctypes.c_int32),
        ("weight_plus_one", ctypes.c_int32),
        ("rows", ctypes.c_int64), ("cols", ctypes.c_int64), ("eps", ctypes.c_float),
        ("x", ctypes.c_void_p), ("x_stride", ctypes.c_int64),
        ("residual", ctypes.c_void_p), ("residual_stride", ctypes.c_int64),
        ("y", ctypes.c_void_p), ("y_stride", ctypes.c_int64),
        ("residual_out", ctypes.c_void_p), ("residual_out_stride", ctypes.c_int64),
        ("weight", ctypes.c_void_p), ("bias", ctypes.c_void_p),
        ("mean", ctypes.c_void_p), ("rstd", ctypes.c_void_p),
        ("dy", ctypes.c_void_p), ("dy_stride", ctypes.c_int64),
        ("dresidual", ctypes.c_void_p), ("dresidual_stride", ctypes.c_int64),
        ("dx", ctypes.c_void_p), ("dx_stride", ctypes.c_int64),
        ("dweight", ctypes.c_void_p), ("dbias", ctypes.c_void_p),
        ("saved_mean", ctypes.c_void_p), ("saved_rstd", ctypes.c_void_p),
        ("scratch", ctypes.c_void_p), ("scratch_bytes", ctypes.c_size_t),
        ("dy_dtype_given", ctypes.c_int32), ("dy_dtype", ctypes.c_int32),
        ("residual_dtype_given", ctypes.c_int32), ("residual_dtype", ctypes.c_int32),
        ("x_group_rows", ctypes.c_int64), ("x_group_stride", ctypes.c_int64),
    ]


def candidate_paths():
    """Where the library is looked for, in order: inside this package (where pip installs it),
    then $NORMLAB_CAPI when set, else the presets' build directories when this package is the
    repository's python/normlab_torch."""
    candidates = [PACKAGE / LIBRARY_NAME]
    if os.environ.get("NORMLAB_CAPI"):
        return candidates + [Path(os.environ["NORMLAB_CAPI"])]
    if PACKAGE == REPO / "python" / "normlab_torch":
        candidates += [REPO / directory / LIBRARY_NAME for directory in BUILD_DIRECTORIES]
    return candidates


def scratch_layout(call):
    """What the scratch a call needs is remembered by (Library.run's hints)."""
    return (call.op, call.dtype, call.weight_dtype, call.dy_dtype if call.dy_dtype_given else -1,
            call.residual_dtype if call.residual_dtype_given else -1, call.rows, call.cols)


def error_for(status, message):
    """The Python exception for a status of normlab_plan / normlab_run."""
    if status == INVALID_ARGUMENT:  # malformed, or no kernel can take it: nothing launched
        return ValueError(f"normlab refused the call: {message}")
    if status == RUNTIME_ERROR:
        return RuntimeError(f"normlab: {message}")
    return RuntimeError(f"normlab: internal error (status {status}): {message}")


class Library:
    """The loaded library, checked against NormlabCall."""

    def __init__(self, path):
        self.path = Path(path)
        self.dll = ctypes.CDLL(str(self.path))
        dll = self.dll
        dll.normlab_capi_abi_version.restype = ctypes.c_int
        dll.normlab_call_layout.restype = ctypes.c_size_t
        dll.normlab_call_layout.argtypes = [ctypes.POINTER(ctypes.c_size_t),
                                            ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t]
        dll.normlab_plan.restype = ctypes.c_int
        dll.normlab_plan.argtypes = [ctypes.POINTER(NormlabCall), ctypes.POINTER(ctypes.c_size_t),
                                     ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                     ctypes.c_size_t]
        dll.normlab_run.restype = ctypes.c_int
        dll.normlab_run.argtypes = [ctypes.POINTER(NormlabCall), ctypes.c_void_p, ctypes.c_char_p,
                                    ctypes.c_size_t]
        self._per_thread = threading.local()
        # Scratch bytes last needed by a layout (op, dtypes, rows, cols), and the ops that have
        # needed any: a repeated call passes that much at once instead of being told
        # SCRATCH_SHORT and planned again. A hint only: the library checks the scratch every
        # call, and a short one is answered as before.
        self._scratch_hints = {}
        self._ops_with_scratch = set()
        self._check_layout()

    def _check_layout(self):
        """Refuses a library whose normlab_call differs from NormlabCall: a mismatch would pass
        pointers in the wrong fields."""
        version = self.dll.normlab_capi_abi_version()
        if version != ABI_VERSION:
            raise ImportError(f"{self.path} has C ABI version {version}; this package needs "
                              f"{ABI_VERSION}: rebuild the library or update the package")
        size = ctypes.c_size_t()
        theirs = (ctypes.c_size_t * (2 * len(NormlabCall._fields_)))()
        count = self.dll.normlab_call_layout(ctypes.byref(size), theirs, len(theirs))
        ours = [value for name, _ in NormlabCall._fields_
                for value in (getattr(NormlabCall, name).offset, getattr(NormlabCall, name).size)]
        if (count, size.value, list(theirs)) != (len(ours) // 2, ctypes.sizeof(NormlabCall), ours):
            raise ImportError(
                f"{self.path}: normlab_call has {count} fields in {size.value} bytes, (offset, "
                f"size) {list(theirs)}; NormlabCall has {len(ours) // 2} in "
                f"{ctypes.sizeof(NormlabCall)} bytes, {ours}: rebuild the library")

    def _error_buffer(self):
        """This thread's buffer for messages (ctypes lets other threads run during a call)."""
        if not hasattr(self._per_thread, "error"):
            self._per_thread.error = ctypes.create_string_buffer(ERROR_CAPACITY)
        return self._per_thread.error

    def plan(self, call):
        """(kernel name, scratch bytes) the dispatcher picks for @p call; launches nothing."""
        scratch = ctypes.c_size_t()
        kernel = ctypes.create_string_buffer(128)
        error = self._error_buffer()
        status = self.dll.normlab_plan(ctypes.byref(call), ctypes.byref(scratch), kernel,
                                       len(kernel), error, len(error))
        if status != OK:
            raise error_for(status, error.value.decode(errors="replace"))
        return kernel.value.decode(), scratch.value

    def run(self, call, stream, allocate_scratch):
        """Launches @p call on @p stream (a cudaStream_t as int, 0 for the default stream).
        Where the plan needs scratch, allocate_scratch(bytes) returns an object with data_ptr()
        that must stay alive until the kernel has read it (PyTorch's caching allocator, which
        orders reuse on the stream, does). Raises, having launched nothing, when refused."""
        error = self._error_buffer()
        if call.op in self._ops_with_scratch:
            hint = self._scratch_hints.get(scratch_layout(call))
            if hint:
                scratch = allocate_scratch(hint)
                call.scratch, call.scratch_bytes = scratch.data_ptr(), hint
        status = self.dll.normlab_run(ctypes.byref(call), stream, error, len(error))
        if status == SCRATCH_SHORT:
            _, call.scratch_bytes = self.plan(call)
            scratch = allocate_scratch(call.scratch_bytes)
            call.scratch = scratch.data_ptr()
            self._ops_with_scratch.add(call.op)
            self._scratch_hints[scratch_layout(call)] = call.scratch_bytes
            status = self.dll.normlab_run(ctypes.byref(call), stream, error, len(error))
        if status != OK:
            raise error_for(status, error.value.decode(errors="replace"))


def load():
    """The first library of candidate_paths() that exists, checked; ImportError naming every
    place looked in otherwise."""
    candidates = candidate_paths()
    for path in candidates:
        if path.is_file():
            return Library(path)
    raise ImportError(
        f"normlab_torch: {LIBRARY_NAME} not found (looked in: "
        + ", ".join(str(p) for p in candidates)
        + "). Install the package with it (pip install -v . at normlab's root), build it (cmake "
          "--preset gpu && cmake --build --preset gpu --target normlab_capi) or set NORMLAB_CAPI"
          " to its path.")


def self_test(path):
    """Checks, without a GPU: the layout agrees; a null call, an out-of-range enum and a
    malformed call each come back as INVALID_ARGUMENT with a message naming the field, never
    as a crash; a message longer than the buffer is truncated and terminated."""
    library = Library(path)
    dll, error = library.dll, library._error_buffer()

    def refusal(call, buffer=error):
        status = dll.normlab_run(call, None, buffer, len(buffer))
        return status, buffer.value.decode(errors="replace")

    status, message = refusal(None)
    assert (status, message) == (INVALID_ARGUMENT, "call is null"), (status, message)
    call = NormlabCall(op=OP_RMSNORM, dtype=7, rows=2, cols=8, eps=1e-5)
    status, message = refusal(ctypes.byref(call))
    assert status == INVALID_ARGUMENT and "normlab_call.dtype is 7" in message, (status, message)
    call.dtype = DTYPE_F32  # x and y are null: malformed wherever it runs
    status, malformed = refusal(ctypes.byref(call))
    assert status != OK and malformed, (status, malformed)
    short = ctypes.create_string_buffer(5)
    status, message = refusal(None, short)
    assert (status, message, short.raw[4]) == (INVALID_ARGUMENT, "call", 0), (status, short.raw)
    try:
        library.plan(NormlabCall(op=-1))
        raise AssertionError("op -1 was planned")
    except ValueError as refused:
        assert "normlab_call.op is -1" in str(refused), refused
    print(f"normlab_capi self-test: ok ({path}; {len(NormlabCall._fields_)} fields, "
          f"{ctypes.sizeof(NormlabCall)} bytes; a call without x: {malformed!r})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] != "--self-test":
        sys.exit("usage: capi.py --self-test [LIBRARY]")
    sys.exit(self_test(sys.argv[2] if len(sys.argv) == 3 else load().path))
