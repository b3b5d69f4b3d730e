"""bp.save and bp.load (torch.save and torch.load's names): state dicts in
the safetensors format, through backplane.safetensors, so the files load
in PyTorch (safetensors.torch.load_file) and anything else that reads the
format, and theirs load here."""
import os
from collections.abc import Mapping

from . import _C, _device
from . import safetensors as _st


def _flatten(obj, prefix, out):
    for key, value in obj.items():
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise TypeError("bp.save: the keys are names (str, or int as an optimiser state's "
                            "are), not {} ({!r})".format(type(key).__name__, key))
        name = prefix + str(key)
        if isinstance(value, Mapping):
            _flatten(value, name + ".", out)
        elif name in out:
            raise ValueError("bp.save: two entries are both called {!r} once nested names are "
                             "joined with dots".format(name))
        else:
            out[name] = value
    return out


def save(obj, f, metadata=None):
    """Saves obj, a dict of tensors such as a module's state_dict(), to f in
    the safetensors format. Nested dicts are flattened with dots, as
    state_dict() names the parameters of nested modules: {"encoder":
    {"weight": w}} is saved as "encoder.weight" (and loaded under that
    name). Values must be tensors (the format holds nothing else: a number
    can be a 0-d tensor, text goes in metadata, a dict of str -> str stored
    in the header). f is a path (str or os.PathLike; written under a
    temporary name and renamed over f when complete) or a file object with
    write(). Each tensor is read through its own device's backend; tensors
    on any devices may be saved together."""
    if not isinstance(obj, Mapping):
        raise TypeError("bp.save saves a dict of tensors (a state_dict()), not {}: the safetensors "
                        "format holds named tensors only".format(type(obj).__name__))
    flat = _flatten(obj, "", {})
    if isinstance(f, (str, bytes, os.PathLike)):
        _st.save_file(flat, f, metadata)
    elif callable(getattr(f, "write", None)):
        names, values, pairs = _st._arguments("bp.save", flat, metadata)
        _C.safetensors_write(f.write, names, values, pairs)
    else:
        raise TypeError("bp.save: f is a path or a file object with write(), not {}".format(
            type(f).__name__))


def load(f, map_location=None):
    """The tensors of a safetensors file as a dict of name -> Tensor, sorted by
    name, each on map_location: a device or its name ("cpu", "opencl:0"),
    or None for the current default device (bp.current_device(): the file
    holds no device to restore). f is a path or a file object with read()
    (read whole into memory; a path is read tensor by tensor). The dict goes
    to module.load_state_dict as it is."""
    if map_location is not None and not isinstance(map_location, (str, _device.Device)):
        raise TypeError("bp.load: map_location is a device or its name, or None for the current "
                        "default device (the file holds no device to map from), not {}".format(
                            type(map_location).__name__))
    where = _device.current_device() if map_location is None else map_location
    if isinstance(f, (str, bytes, os.PathLike)):
        return _st.load_file(f, device=where)
    if callable(getattr(f, "read", None)):
        return _st.load(f.read(), device=where)
    raise TypeError("bp.load: f is a path or a file object with read(), not {}".format(
        type(f).__name__))
