"""Collectives across processes: an MPI launch is a process group.

    mpirun -np 2 python train.py        # srun works too

    import backplane as bp
    import backplane.distributed as dist
    dist.init()                          # joins the launch's group (MPI)
    device = dist.local_device()         # try_gpu(local_rank): one device per process
    dist.all_reduce(t, "sum")            # in place, on every rank

The collectives mirror the in-process ones (bp.all_reduce over a list of
devices) with one tensor per process, on any device: host and OpenCL tensors
go through MPI from host memory, CUDA tensors through NCCL. Every rank must
call the same collective with the same shape and dtype; a mismatch is an
error naming the rank, on every rank. A peer that does not arrive within the
timeout (300 s, or BACKPLANE_DIST_TIMEOUT, or init(timeout=...)) raises
bp.PeerError; the group is then broken and the process should exit.
DataParallel averages the gradients of an nn.Module after backward in a few
large buckets. Needs libbackplane built with MPI (libopenmpi-dev); without
it, init() raises bp.UnsupportedError.
"""
from .. import _C
from .._collectives import COLLECTIVE, reduce_op
from .._device import try_gpu
from .._tensor import Tensor
from .data_parallel import DataParallel

__all__ = ["init", "finalize", "is_initialized", "rank", "size", "local_rank", "local_size",
           "get_rank", "get_world_size", "local_device", "all_reduce", "broadcast", "all_gather",
           "reduce_scatter", "barrier", "DataParallel"]

_initialized = False


def init(timeout=None):
    """Joins the process group of the MPI launch (a process started alone is
    a group of one). timeout: seconds a collective waits for its peers."""
    global _initialized
    _C.dist_init(0.0 if timeout is None else float(timeout))
    _initialized = True


def finalize():
    """Leaves the group (finalising MPI when init started it)."""
    global _initialized
    _C.dist_finalize()
    _initialized = False


def is_initialized():
    return _initialized


def rank():
    """This process's rank, 0..size()-1."""
    return _C.dist_info()[0]


def size():
    """The number of processes in the group."""
    return _C.dist_info()[1]


def local_rank():
    """This process's rank among those on its machine."""
    return _C.dist_info()[2]


def local_size():
    """How many processes of the group run on this machine."""
    return _C.dist_info()[3]


get_rank, get_world_size = rank, size  # torch.distributed's names


def local_device():
    """try_gpu(local_rank()): each process of a machine on its own accelerator,
    or cpu:0 where there are fewer."""
    return try_gpu(local_rank())


def _tensor(fn, t):
    if not isinstance(t, Tensor):
        raise TypeError("{}: expected a backplane Tensor, got {}".format(fn, type(t).__name__))
    return t


def all_reduce(tensor, op="sum"):
    """tensor becomes the reduction ("sum", "mean", "max", "min") of every
    rank's tensor, in place; returns it."""
    _C.dist_collective(COLLECTIVE["all_reduce"], _tensor("all_reduce", tensor), reduce_op(op))
    return tensor


def broadcast(tensor, root=0):
    """tensor becomes a copy of rank root's, in place; returns it."""
    _C.dist_collective(COLLECTIVE["broadcast"], _tensor("broadcast", tensor), int(root))
    return tensor


def all_gather(tensor):
    """A new tensor of shape (size(), *tensor.shape) on tensor's device whose
    row r is rank r's tensor."""
    return _C.dist_collective(COLLECTIVE["all_gather"], _tensor("all_gather", tensor), 0)


def reduce_scatter(tensor, op="sum"):
    """tensor has shape (size(), *shape); returns a new tensor of shape
    `shape`: the reduction over ranks of row rank() of their tensors."""
    return _C.dist_collective(COLLECTIVE["reduce_scatter"], _tensor("reduce_scatter", tensor),
                              reduce_op(op))


def barrier():
    """Returns when every rank has called it (bounded by the timeout)."""
    _C.dist_barrier()
