"""Parameter: a tensor that a Module owns and trains."""
from .. import _C
from .._grad_mode import no_grad
from .._tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor requiring gradients (unless requires_grad=False) that a
    Module lists in parameters(). Parameter(t) shares t's storage, as in
    PyTorch. The object stays the same when its module moves (module.to
    rebinds it to the moved tensor), so optimisers may hold it.

    .data is the same elements without gradient tracking: an attribute in
    PyTorch's spelling (p.data.device) that may also be called, Gluon's
    spelling (p.data().ctx)."""

    __slots__ = ()

    def __new__(cls, data, requires_grad=True):
        p = _C.adopt(cls, data.detach())
        if requires_grad:
            _C.set_requires_grad(p, True)
        return p

    @property
    def data(self):
        return _C.adopt(_Data, _C.detach(self))

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        with no_grad():
            return Parameter(self.copy(), self.requires_grad)


class _Data(Tensor):
    """A parameter's .data; called, itself (Gluon's param.data())."""

    __slots__ = ()

    def __call__(self):
        return self
