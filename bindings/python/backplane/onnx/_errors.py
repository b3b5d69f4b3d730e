"""The error of a model that cannot run where it was asked to."""
from .._errors import UnsupportedError


class UnsupportedModelError(UnsupportedError):
    """prepare() refused a model: the message names every node the device
    cannot run (name, operator, opset, dtypes), why, and which devices
    would run it; .nodes lists those lines."""

    def __init__(self, message, nodes=()):
        super().__init__(message, op="onnx.prepare")
        self.nodes = list(nodes)


UnsupportedModelError.__module__ = "backplane.onnx"
