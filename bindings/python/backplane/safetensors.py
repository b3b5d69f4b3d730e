"""backplane.safetensors: the `safetensors` package's functions for
Backplane tensors, with its names and arguments (those of
safetensors.torch), over the C API's safetensors files (backplane.h):

    from backplane.safetensors import save_file, load_file, safe_open
    save_file({"w": w, "b": b}, "model.safetensors", metadata={"step": "10"})
    tensors = load_file("model.safetensors", device="opencl:0")
    with safe_open("model.safetensors", framework="bp", device="cpu") as f:
        w = f.get_tensor("w")

The files are the format's own: the `safetensors` package (numpy, torch,
...) reads what these write and the other way round. Saving reads each
tensor through its own device's backend; loading writes it through the
given device's backend: nothing moves between devices behind the caller's
back, and the file holds no device. A file is checked whole when opened:
a malformed one raises bp.FormatError (a ValueError) naming the file, the
byte offset and what is wrong; a path that cannot be read or written
raises bp.IoError (an OSError; for a missing file also a
FileNotFoundError)."""
import errno
import os
from collections.abc import Mapping

from . import _C, _device
from ._errors import IoError
from ._tensor import Tensor

__all__ = ["save_file", "load_file", "save", "load", "safe_open"]


def _arguments(fn, tensors, metadata):
    """The names, tensors and metadata pairs the C API takes."""
    if not isinstance(tensors, Mapping):
        raise TypeError("{}: tensors must be a dict of name -> Tensor, not {}".format(
            fn, type(tensors).__name__))
    names, values = [], []
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise TypeError("{}: the names must be str, not {} ({!r})".format(
                fn, type(name).__name__, name))
        if not isinstance(t, Tensor):
            raise TypeError("{}: {!r}: {} is no backplane Tensor (the format holds tensors "
                            "only)".format(fn, name, type(t).__name__))
        names.append(name)
        values.append(t)
    pairs = []
    if metadata is not None:
        if not isinstance(metadata, Mapping):
            raise TypeError("{}: metadata must be a dict of str -> str, not {}".format(
                fn, type(metadata).__name__))
        for key, value in metadata.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("{}: metadata must map str to str, not {!r}: {!r}".format(
                    fn, key, value))
            pairs.append((key, value))
    return names, values, pairs


def _device_id(fn, device):
    if not isinstance(device, (str, _device.Device)):
        raise TypeError("{}: device must be a bp.Device or a name such as 'cpu' or 'opencl:0', "
                        "not {}".format(fn, type(device).__name__))
    return _device.resolve(device)


class _MissingFileError(IoError, FileNotFoundError):
    """A file that is not there: both a bp.IoError and a FileNotFoundError."""


def _opened(path):
    """The handle of the file at path."""
    try:
        return _C.safetensors_open(path)
    except IoError as e:
        if os.path.lexists(path):
            raise
        missing = _MissingFileError(e.message, status=e.status, code=e.code)
        missing.errno, missing.strerror = errno.ENOENT, os.strerror(errno.ENOENT)
        missing.filename = os.fspath(path)
        raise missing from None


def save_file(tensors, filename, metadata=None):
    """Writes the dict of name -> Tensor (any devices) to filename, with
    metadata (a dict of str -> str) in the header's "__metadata__". The
    file is written under a temporary name and renamed over filename when
    complete: filename never holds part of a file."""
    names, values, pairs = _arguments("save_file", tensors, metadata)
    _C.safetensors_save(filename, names, values, pairs)


def save(tensors, metadata=None):
    """The bytes save_file would write."""
    names, values, pairs = _arguments("save", tensors, metadata)
    chunks = []
    _C.safetensors_write(chunks.append, names, values, pairs)
    return b"".join(chunks)


class safe_open:
    """An open, checked file (safetensors.safe_open): keys(),
    get_tensor(name), metadata(); a context manager that closes it (close()
    does too). framework names what get_tensor gives: "bp" (also
    "backplane"), Backplane tensors on device."""

    def __init__(self, filename, framework="bp", device="cpu"):
        self._start(framework, device, lambda: _opened(filename))

    @classmethod
    def _of_bytes(cls, data, device):
        f = cls.__new__(cls)
        f._start("bp", device, lambda: _C.safetensors_open_bytes(data))
        return f

    def _start(self, framework, device, open_handle):
        self._handle, self._closed = None, False
        if framework not in ("bp", "backplane"):
            raise ValueError("safe_open: framework {!r}: backplane.safetensors gives Backplane tensors "
                             "(framework='bp'); the safetensors package reads the same files into "
                             "other frameworks".format(framework))
        self._device = _device_id("safe_open", device)
        self._handle = open_handle()
        self._entries = _C.safetensors_entries(self._handle)

    def keys(self):
        """The tensors' names, sorted."""
        return [name for name, _, _ in self._entries]

    def metadata(self):
        """The header's "__metadata__" as a dict, or None when it has none."""
        return dict(_C.safetensors_metadata(self._handle)) or None

    def get_tensor(self, name):
        """The tensor called name, read from the file onto the device."""
        return _C.safetensors_load(self._handle, name, self._device)

    def _all(self):
        return dict(zip(self.keys(), _C.safetensors_load_all(self._handle, self._device)))

    def close(self):
        """Closes the file (get_tensor then raises bp.InvalidHandleError);
        tensors already loaded stay valid."""
        if self._handle is not None and not self._closed:
            self._closed = True
            _C.safetensors_close(self._handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            try:
                self.close()
            except Exception:  # at interpreter exit the extension may be gone already
                pass


def load_file(filename, device="cpu"):
    """Every tensor of the file as a dict of name -> Tensor on device (sorted
    by name, as the safetensors package's keys() are)."""
    with safe_open(filename, device=device) as f:
        return f._all()


def load(data, device="cpu"):
    """Every tensor of a file held in bytes (what save gives)."""
    with safe_open._of_bytes(data, device) as f:
        return f._all()
