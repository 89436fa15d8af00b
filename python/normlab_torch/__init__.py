# SPDX-License-Identifier: Apache-2.0
"""normlab's RMSNorm and LayerNorm kernels as PyTorch ops and modules.

    import normlab_torch
    y = normlab_torch.rms_norm(x, weight, 1e-6)                # autograd, torch.compile
    model.norm = normlab_torch.RMSNorm.from_torch(model.norm)  # swap a module in one line

The ops are registered in the namespace "normlab" (torch.ops.normlab.*) on import. They run
through libnormlab_capi.so, a plain C library that normlab's own build makes: `pip install -v .`
at normlab's root builds it into this package; from a repository checkout, set NORMLAB_CAPI to
its path, or build into build/gpu or build/default. Eager calls take normlab_torch._C, a module
compiled against PyTorch, where the build found a PyTorch to compile it against, and ctypes
otherwise: backend() says which.
"""


def _repository_version():
    """project()'s version in the CMakeLists.txt of the repository that holds this package."""
    import re
    from pathlib import Path
    cmakelists = Path(__file__).resolve().parents[2] / "CMakeLists.txt"
    found = re.search(r"project\(normlab VERSION ([0-9.]+)", cmakelists.read_text())
    if not found:
        raise ImportError(f"normlab_torch: no project(normlab VERSION ...) in {cmakelists}")
    return found.group(1)


# The version is stated once, in project() of normlab's CMakeLists.txt: pip's build
# (pyproject.toml) writes it into the wheel's metadata and into _version.py; a repository
# checkout on PYTHONPATH reads CMakeLists.txt itself. First: it needs neither PyTorch nor the
# library.
try:
    from ._version import __version__
except ImportError:
    __version__ = _repository_version()

from .modules import LayerNorm, RMSNorm, replace_norms
from .ops import (backend, extension_error, fused_add_layer_norm, fused_add_layer_norm_,
                  fused_add_rms_norm, fused_add_rms_norm_, layer_norm, library_path, rms_norm)

__all__ = ["__version__", "rms_norm", "layer_norm", "fused_add_rms_norm_", "fused_add_layer_norm_",
           "fused_add_rms_norm", "fused_add_layer_norm", "RMSNorm", "LayerNorm", "replace_norms", "library_path", "backend", "extension_error"]
