# SPDX-License-Identifier: Apache-2.0
"""RMSNorm and LayerNorm modules that hold the same parameters as torch.nn.RMSNorm and
torch.nn.LayerNorm (state dicts load either way) and run normlab's ops."""
import torch

from . import ops


def _shape(normalized_shape):
    """normalized_shape as a tuple: an int is one dimension."""
    return (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)


def _parameter(shape, fill, device, dtype):
    return torch.nn.Parameter(torch.full(shape, fill, device=device, dtype=dtype))


def _trailing(normalized_shape):
    """What the ops take for the norm's dimensions: None for the last one alone (the ops' own
    case), else the shape (several trailing dimensions)."""
    return normalized_shape if len(normalized_shape) > 1 else None


class RMSNorm(torch.nn.Module):
    """torch.nn.RMSNorm by normlab, over its normalized_shape (the last dimension, or several);
    gemma=True scales by (1 + weight) (then initialised to 0); bias=True adds a bias
    (initialised to 0), as PyTorch-style RMSNorm modules with one do. eps=None means
    torch.finfo(x.dtype).eps, as in torch.nn.RMSNorm."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, gemma=False,
                 device=None, dtype=None, bias=False):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.gemma = gemma
        if elementwise_affine:
            self.weight = _parameter(self.normalized_shape, 0.0 if gemma else 1.0, device, dtype)
        else:
            self.register_parameter("weight", None)
        if elementwise_affine and bias:
            self.bias = _parameter(self.normalized_shape, 0.0, device, dtype)
        else:
            self.register_parameter("bias", None)

    @classmethod
    def from_torch(cls, module):
        """A copy of a torch.nn.RMSNorm: its eps, shape and weight (values copied)."""
        norm = cls(module.normalized_shape, module.eps, module.elementwise_affine, device="meta")
        if module.weight is not None:
            norm.weight = torch.nn.Parameter(module.weight.detach().clone(),
                                             requires_grad=module.weight.requires_grad)
        return norm

    def forward(self, x):
        eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
        return ops.rms_norm(x, self.weight, eps, self.gemma, bias=self.bias,
                            normalized_shape=_trailing(self.normalized_shape))

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, gemma={self.gemma}, "
                f"bias={self.bias is not None}")


class LayerNorm(torch.nn.Module):
    """torch.nn.LayerNorm by normlab, over its normalized_shape (the last dimension, or
    several)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        shape = self.normalized_shape
        self.weight = _parameter(shape, 1.0, device, dtype) if elementwise_affine else None
        self.bias = _parameter(shape, 0.0, device, dtype) if elementwise_affine and bias else None

    @classmethod
    def from_torch(cls, module):
        """A copy of a torch.nn.LayerNorm: its eps, shape, weight and bias (values copied)."""
        norm = cls(module.normalized_shape, module.eps, module.elementwise_affine,
                   bias=module.bias is not None, device="meta")
        for name in ("weight", "bias"):
            source = getattr(module, name)
            if source is not None:
                setattr(norm, name, torch.nn.Parameter(source.detach().clone(),
                                                       requires_grad=source.requires_grad))
        return norm

    def forward(self, x):
        return ops.layer_norm(x, self.weight, self.bias, self.eps,
                              normalized_shape=_trailing(self.normalized_shape))

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


def replace_norms(model):
    """Replaces every torch.nn.RMSNorm and torch.nn.LayerNorm inside @p model by normlab's
    (from_torch) and returns how many it replaced."""
    kinds = {torch.nn.RMSNorm: RMSNorm, torch.nn.LayerNorm: LayerNorm}
    found = [(name, module) for name, module in model.named_modules()
             if name and type(module) in kinds]
    for name, module in found:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, kinds[type(module)].from_torch(module))
    return len(found)
