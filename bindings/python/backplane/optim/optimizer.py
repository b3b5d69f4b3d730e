"""Optimizer: the base of SGD and Adam (PyTorch's shape: param_groups of
dicts, zero_grad(), step())."""
from .. import _C
from .._grad_mode import no_grad
from .._tensor import OP, zeros_like

# In-place operators of the steps: out = a op b, where a or b may be a number.
ADD, SUB, MUL, DIV = OP["add"], OP["sub"], OP["mul"], OP["div"]
SQRT = OP["sqrt"]
binary_out, unary_out = _C.binary_out, _C.unary_out


class Optimizer:
    """Holds parameters in groups (dicts with "params" and the
    hyperparameters, which may be changed between steps: group["lr"]) and
    per-parameter state. step() updates each parameter that has a gradient in
    place, with grad mode off, through the _out operators: the state is made
    on the parameter's device at its first step, after which a step allocates
    no tensor."""

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.param_groups = []
        self.state = {}  # id(parameter) -> dict of tensors (tensors are not hashable)
        params = list(params)
        if not params:
            raise ValueError("the optimizer got an empty parameter list (a lazy layer makes its "
                             "parameters on its first call: make the optimizer after it)")
        for group in params if isinstance(params[0], dict) else [{"params": params}]:
            self.add_param_group(group)

    def add_param_group(self, group):
        group = dict(group)
        params = group["params"]
        group["params"] = list(params) if not hasattr(params, "shape") else [params]
        for p in group["params"]:
            if not p.is_leaf or not p.requires_grad:
                raise ValueError("an optimizer updates leaves that require gradients, not a "
                                 "tensor with grad_fn={!r}, requires_grad={}".format(
                                     p.grad_fn, p.requires_grad))
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Forgets the parameters' gradients (or zeroes them in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g is not None:
                        with no_grad():
                            g.zero_()

    def step(self):
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    state = self.state.setdefault(id(p), {})
                    if not state:
                        self._init_state(p, group, state)
                    self._update(p, g, group, state)

    def _init_state(self, p, group, state):
        """Preallocates state["scratch"] (a temporary of p's shape) and what
        the method keeps between steps."""
        state["scratch"] = zeros_like(p)

    def _update(self, p, grad, group, state):
        raise NotImplementedError
