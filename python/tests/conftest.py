# SPDX-License-Identifier: Apache-2.0
# pytest python/tests from the repository root works without PYTHONPATH: the package and the
# comparison tool (whose tolerances and comparison the tests share) are put on the path here.
# The fixture backend runs a test on each path of the eager calls.
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
for directory in (REPO / "python", REPO / "bench"):
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))


@pytest.fixture(params=["extension", "ctypes"])
def backend(request, monkeypatch):
    """Runs a test on each path of normlab_torch's eager calls: the compiled extension
    (normlab_torch._C; skipped where it is not loaded) and the ctypes path alone."""
    import normlab_torch

    if request.param == "extension" and normlab_torch.ops._extension is None:
        pytest.skip(f"normlab_torch._C is not loaded: {normlab_torch.extension_error()}")
    if request.param == "ctypes":
        monkeypatch.setattr(normlab_torch.ops, "_extension", None)
    return request.param
