"""Gradient clipping as torch.nn.utils (1.13) computes it: in place on the
gradients, on their devices, with grad mode off."""
import math

from ... import _composite
from ..._grad_mode import no_grad
from ..._tensor import Tensor, tensor


def _gradients(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [g for g in (p.grad for p in parameters) if g is not None]


def _norm(x, norm_type):
    """torch.norm(x, norm_type) of every element of x: a 0-d tensor."""
    if norm_type == math.inf:
        return x.abs().max()
    if norm_type == -math.inf:
        return x.abs().min()
    if norm_type == 2:
        return x.norm()
    if norm_type == 1:
        return x.abs().sum()
    if norm_type == 0:
        return (x != 0).sum().to(x.dtype)
    return (x.abs() ** norm_type).sum() ** (1.0 / norm_type)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients of parameters (an iterable of tensors, or one)
    together so that their total norm_type-norm (the norm of the vector of
    each gradient's norm; norm_type may be inf) is at most max_norm: each
    is multiplied by min(1, max_norm / (total + 1e-6)). Returns the total
    norm before clipping, a 0-d tensor on the first gradient's device
    (tensor(0.) on cpu when no parameter has a gradient). The norms of
    gradients on other devices are moved there explicitly, one number each,
    as PyTorch moves them. error_if_nonfinite raises RuntimeError when the
    total is NaN or infinite (reading it to the host), instead of scaling by
    it."""
    grads = _gradients(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return tensor(0.0, device="cpu")
    device = grads[0].device
    with no_grad():
        norms = [_norm(g, norm_type).to(device) for g in grads]
        if norm_type == math.inf:
            total = norms[0] if len(norms) == 1 else _composite.stack(norms).max()
        else:
            total = _norm(_composite.stack(norms), norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError("The total norm of order {} for gradients from `parameters` is non-finite, so it "
                               "cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`".format(norm_type))
        coefficient = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coefficient if g.device == device else coefficient.to(g.device))
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient of parameters into [-clip_value, clip_value]
    in place."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _gradients(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
