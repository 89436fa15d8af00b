# SPDX-License-Identifier: Apache-2.0
"""normlab's RMSNorm and LayerNorm kernels as PyTorch ops and modules.

    import normlab_torch
    y = normlab_torch.rms_norm(x, weight, 1e-6)                # autograd, torch.compile
    model.norm = normlab_torch.RMSNorm.from_torch(model.norm)  # swap a module in one line

The ops are registered in the namespace "normlab" (torch.ops.normlab.*) on import. They run
through libnormlab_capi.so, a plain C library that normlab's own build makes (no build against
PyTorch): set NORMLAB_CAPI to its path, or build into build/gpu or build/default.
"""
from .modules import LayerNorm, RMSNorm, replace_norms
from .ops import (fused_add_layer_norm_, fused_add_rms_norm_, layer_norm, library_path,
                  rms_norm)

__all__ = ["rms_norm", "layer_norm", "fused_add_rms_norm_", "fused_add_layer_norm_", "RMSNorm",
           "LayerNorm", "replace_norms", "library_path"]
