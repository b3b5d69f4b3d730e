"""Module: the base of layers and networks, shaped like PyTorch's nn.Module,
with Gluon's initialize() as a thin alias."""
from .. import _C
from .._grad_mode import no_grad
from .._tensor import Tensor, _is_dtype_spec
from . import init as _init
from .parameter import Parameter


class Module:
    """A network piece: assign Parameters and Modules as attributes in
    __init__ (after super().__init__()) and write forward(); calling the
    module calls forward.

    parameters() and named_parameters() walk the tree; to(device) moves the
    parameters in place (each Parameter stays the same object, so an
    optimiser made before keeps working); state_dict()/load_state_dict()
    save and restore values; zero_grad() forgets gradients. Buffers
    (register_buffer: state that is not trained, such as batch norm's
    running statistics) move with the module and are in state_dict()
    unless registered with persistent=False."""

    def __init__(self):
        d = self.__dict__
        d["_parameters"] = {}  # name -> Parameter or None (bias=False), in order
        d["_modules"] = {}  # name -> Module
        d["_buffers"] = {}  # name -> Tensor or None, in order
        d["_non_persistent"] = set()  # buffer names left out of state_dict()
        d["training"] = True
        # Where parameters made later go (lazy layers): set by to().
        d["_device"] = d["_dtype"] = None

    # ---- attributes: parameters and submodules are registered -----------------

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if params is None:
            raise AttributeError("call super().__init__() before assigning attributes of a Module")
        buffers = self.__dict__["_buffers"]
        if name in buffers and not isinstance(value, (Parameter, Module)):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError("{}.{} is a buffer: assign a tensor or None, not {}"
                                .format(type(self).__name__, name, type(value).__name__))
            buffers[name] = value
        elif isinstance(value, Parameter):
            self.__dict__.pop(name, None)
            self._modules.pop(name, None)
            buffers.pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            self.__dict__.pop(name, None)
            params.pop(name, None)
            self._modules[name] = value
        elif name in params:
            if value is not None:
                raise TypeError("{}.{} is a parameter: assign a bp.nn.Parameter or None, not {}"
                                .format(type(self).__name__, name, type(value).__name__))
            params[name] = None
        else:
            self._modules.pop(name, None)
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if name in d.get(table, ()):
                return d[table][name]
        raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, name))

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        """Adds a parameter (or None, a slot without one: bias=False)."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError("register_parameter: a bp.nn.Parameter or None, not {}"
                            .format(type(param).__name__))
        self.__dict__.pop(name, None)
        self._parameters[name] = param

    def add_module(self, name, module):
        self._modules[name] = module

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer: a tensor the module keeps and moves with it but
        does not train (or None, a slot without one). state_dict() holds it
        unless persistent is False."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError("register_buffer: a tensor or None, not {}".format(type(tensor).__name__))
        if name in self._parameters or name in self._modules:
            raise KeyError("register_buffer: {!r} is already a parameter or a module".format(name))
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    # ---- running ---------------------------------------------------------------

    def forward(self, *args, **kwargs):
        raise NotImplementedError("{} has no forward()".format(type(self).__name__))

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def train(self, mode=True):
        """Sets training mode here and below (layers that behave differently
        in training read self.training); returns self."""
        for m in self.modules():
            m.__dict__["training"] = bool(mode)
        return self

    def eval(self):
        return self.train(False)

    # ---- the tree ----------------------------------------------------------------

    def named_children(self):
        return iter(self._modules.items())

    def children(self):
        return iter(self._modules.values())

    def named_modules(self, prefix=""):
        """(name, module) for this module and every one below, once each."""
        seen = set()

        def walk(m, name):
            if id(m) in seen:
                return
            seen.add(id(m))
            yield name, m
            for child_name, child in m._modules.items():
                if child is not None:
                    yield from walk(child, name + "." + child_name if name else child_name)
        return walk(self, prefix)

    def modules(self):
        return (m for _, m in self.named_modules())

    def named_parameters(self, prefix="", recurse=True):
        """(dotted name, Parameter) for every parameter, each once (a shared
        one under its first name). Lazy layers have none until their first
        call."""
        seen = set()
        mods = self.named_modules(prefix) if recurse else [(prefix, self)]
        for name, m in mods:
            for pname, p in m._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (name + "." + pname if name else pname), p

    def parameters(self, recurse=True):
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True):
        """(dotted name, tensor) for every buffer that is not None."""
        mods = self.named_modules(prefix) if recurse else [(prefix, self)]
        for name, m in mods:
            for bname, b in m._buffers.items():
                if b is not None:
                    yield (name + "." + bname if name else bname), b

    def buffers(self, recurse=True):
        return (b for _, b in self.named_buffers(recurse=recurse))

    def _state_items(self):
        """(dotted name, tensor, is_parameter) of state_dict(): each module's
        parameters, then its persistent buffers, module by module (PyTorch's
        order); a shared parameter under its first name."""
        seen = set()
        for name, m in self.named_modules():
            for pname, p in m._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (name + "." + pname if name else pname), p, True
            for bname, b in m._buffers.items():
                if b is not None and bname not in m._non_persistent:
                    yield (name + "." + bname if name else bname), b, False

    def apply(self, fn):
        """fn(m) for every module below and then this one; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- devices, dtypes, values ---------------------------------------------------

    def to(self, *args, device=None, dtype=None):
        """Moves (and/or converts) every parameter in place and returns self:
        net.to(bp.try_gpu()), net.to(device=...), net.to(bp.float64).
        Lazy layers make their parameters there later. A parameter's
        gradient does not move with it: move before training."""
        for a in args:
            if _is_dtype_spec(a):
                dtype = a
            else:
                device = a
        with no_grad():
            for m in self.modules():
                m.__dict__["_device"] = device if device is not None else m._device
                m.__dict__["_dtype"] = dtype if dtype is not None else m._dtype
                for p in m._parameters.values():
                    if p is None:
                        continue
                    moved = p.to(device=device, dtype=dtype)
                    if moved is not p:
                        requires_grad = p.requires_grad
                        _C.rebind(p, moved)
                        p.requires_grad_(requires_grad)
                # Buffers move too; a dtype applies to the float ones only
                # (num_batches_tracked stays int64), as in PyTorch.
                for b in m._buffers.values():
                    if b is None:
                        continue
                    moved = b.to(device=device, dtype=dtype if b.dtype.is_floating_point else None)
                    if moved is not b:
                        _C.rebind(b, moved)
        return self

    def state_dict(self):
        """{dotted name: tensor} sharing the parameters' and persistent
        buffers' storage (no gradient)."""
        return {name: t.detach() for name, t, _ in self._state_items()}

    def load_state_dict(self, state_dict, strict=True):
        """Copies values into the parameters in place (from any device, or
        host data); with strict, the names must match exactly. Returns
        (missing keys, unexpected keys)."""
        own = {name: t for name, t, _ in self._state_items()}
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise KeyError("load_state_dict: missing keys {}, unexpected keys {}".format(
                missing, unexpected))
        with no_grad():
            for name, p in own.items():
                if name in state_dict:
                    value = state_dict[name]
                    shape = tuple(getattr(value, "shape", ()))
                    if shape != p.shape:
                        raise ValueError("load_state_dict: {} has shape {}, the value {}".format(
                            name, p.shape, shape))
                    p.copy_(value)
        return missing, unexpected

    def zero_grad(self, set_to_none=True):
        """Forgets every parameter's gradient (or zeroes it in place)."""
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g is not None:
                    g.zero_()

    # ---- Gluon --------------------------------------------------------------------

    def initialize(self, init=None, ctx=None, force_reinit=True):
        """Gluon's net.initialize(init=..., ctx=...): moves the network to ctx
        (like to()) and, when init is given (an nn.init object such as
        Normal(0.01), or a function of a tensor), fills every weight with it
        and every bias with zeros; lazy layers do it when they make their
        parameters. Optional here: layers are initialised when made.
        Always re-initialises (force_reinit is accepted for Gluon code)."""
        if isinstance(ctx, (list, tuple)):
            raise NotImplementedError("initialize(ctx=[...]): one device per network here")
        if ctx is not None:
            self.to(ctx)
        if init is not None:
            for m in self.modules():
                m._initialize(init)
        return self

    def _initialize(self, init):
        for name, p in self._parameters.items():
            if p is not None:
                (_init.zeros_ if name.endswith("bias") else init)(p)

    # ---- printing ----------------------------------------------------------------------

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [self.extra_repr()] if self.extra_repr() else []
        lines += ["({}): {}".format(name, repr(m).replace("\n", "\n  "))
                  for name, m in self._modules.items()]
        if not self._modules:
            return "{}({})".format(type(self).__name__, "\n  ".join(lines))
        return "{}(\n  {}\n)".format(type(self).__name__, "\n  ".join(lines))
