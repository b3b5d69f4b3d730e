"""Collectives across the devices of this process (backplane/collectives.h):
one tensor per device, as d2l's allreduce over try_all_gpus(). The backend
runs them when every tensor is on a distinct device of one backend that
implements them (CUDA: NCCL; OpenCL: device-to-device copies and a kernel);
otherwise they are staged through host memory. bp.trace() says which.
Across processes, see backplane.distributed."""
from . import _C
from ._tensor import Tensor

COLLECTIVE = {name: value for value, name in _C.collectives}
REDUCE_OP = {name: value for value, name in _C.reduce_ops}


def reduce_op(op):
    """The BP_REDUCE_* number of "sum", "mean", "max" or "min"."""
    try:
        return REDUCE_OP[op]
    except KeyError:
        raise ValueError("reduce op {!r}: expected one of {}".format(
            op, ", ".join(sorted(REDUCE_OP)))) from None


def _tensors(fn, tensors):
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("{}: tensors[{}] is a {}, not a backplane Tensor".format(
                fn, i, type(t).__name__))
    return tensors


def all_reduce(tensors, op="sum"):
    """Every tensor of the list becomes the reduction ("sum", "mean", "max",
    "min") of all of them, in place; returns the list."""
    tensors = _tensors("all_reduce", tensors)
    _C.collective(COLLECTIVE["all_reduce"], tensors, reduce_op(op))
    return tensors


def broadcast(tensors, root=0):
    """Every tensor of the list becomes a copy of tensors[root], in place;
    returns the list."""
    tensors = _tensors("broadcast", tensors)
    _C.collective(COLLECTIVE["broadcast"], tensors, int(root))
    return tensors


def all_gather(tensors):
    """A new tensor of shape (n, *shape) on each tensor's device, whose row j
    is tensors[j]."""
    return _C.collective(COLLECTIVE["all_gather"], _tensors("all_gather", tensors), 0)


def reduce_scatter(tensors, op="sum"):
    """tensors have shape (n, *shape); tensor i of the result (shape `shape`,
    on tensors[i]'s device) is the reduction of row i of every tensor."""
    return _C.collective(COLLECTIVE["reduce_scatter"], _tensors("reduce_scatter", tensors),
                         reduce_op(op))
