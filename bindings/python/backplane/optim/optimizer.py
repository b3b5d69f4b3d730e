"""Optimizer: the base of SGD, Adam and AdamW (PyTorch's shape:
param_groups of dicts, zero_grad(), step())."""
from .. import _C
from .._errors import ShapeError
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

    def state_dict(self):
        """PyTorch's layout: {"state": {index: {name: value}}, "param_groups":
        [group with "params" as indices]}, parameters numbered in group
        order. The state is SGD's "momentum_buffer", Adam's "step",
        "exp_avg" and "exp_avg_sq": the live tensors, not copies (as in
        PyTorch; copy.deepcopy(opt.state_dict()) keeps a snapshot). Only
        parameters that have taken a step have state."""
        state, groups, index = {}, [], 0
        for group in self.param_groups:
            numbers = list(range(index, index + len(group["params"])))
            for i, p in zip(numbers, group["params"]):
                saved = {k: v for k, v in self.state.get(id(p), {}).items()
                         if not k.startswith("scratch")}
                if saved:
                    state[i] = saved
            groups.append(dict(group, params=numbers))
            index += len(numbers)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Takes the hyperparameters and state of state_dict (from
        state_dict() of an optimiser of the same kind over parameters of the
        same shapes, in the same groups): the values are copied into this
        optimiser's own state tensors, on its parameters' devices, so the
        next step continues where the saved one stopped."""
        if not isinstance(state_dict, dict) or set(state_dict) != {"state", "param_groups"}:
            raise ValueError("load_state_dict takes what state_dict() gives: a dict of 'state' "
                             "and 'param_groups'")
        groups = state_dict["param_groups"]
        own = self.param_groups
        if len(groups) != len(own) or any(len(g["params"]) != len(o["params"])
                                          for g, o in zip(groups, own)):
            raise ValueError("load_state_dict: the saved groups hold {} parameters, this "
                             "optimizer's {}".format([len(g["params"]) for g in groups],
                                                     [len(g["params"]) for g in self.param_groups]))
        # The new state is made whole before anything changes: a bad entry
        # leaves this optimiser as it was.
        saved_state, new_state = state_dict["state"], {}
        with no_grad():
            for group, own_group in zip(groups, own):
                options = dict(own_group, **{k: v for k, v in group.items() if k != "params"})
                for i, p in zip(group["params"], own_group["params"]):
                    saved = saved_state.get(i)
                    if saved:
                        new_state[id(p)] = self._loaded_state(p, options, saved)
        for group, own_group in zip(groups, own):
            own_group.update({k: v for k, v in group.items() if k != "params"})
        self.state = new_state

    def _loaded_state(self, p, group, saved):
        """p's state made as at a first step, holding the saved values."""
        state = {}
        self._init_state(p, group, state)
        for key, value in saved.items():
            if key not in state:
                raise ValueError("load_state_dict: {} keeps no {!r}".format(
                    type(self).__name__, key))
            if hasattr(state[key], "copy_"):
                # copy_ would broadcast a saved value of another shape.
                if tuple(getattr(value, "shape", ())) != tuple(state[key].shape):
                    raise ShapeError("load_state_dict: {}'s {!r} has shape {}, the parameter's "
                                     "state needs {}".format(type(self).__name__, key,
                                                             tuple(getattr(value, "shape", ())),
                                                             tuple(state[key].shape)))
                state[key].copy_(value)
            else:
                state[key] = type(state[key])(value)
        return state

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
