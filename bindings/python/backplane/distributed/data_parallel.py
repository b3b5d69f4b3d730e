"""Data-parallel training: each rank runs the model on its share of every
batch, and the gradients are averaged across ranks after backward, so that
every rank takes the same optimiser step as one process on the whole batch
(with a loss that is a mean over the batch, and equal shares)."""
from .. import _C
from .._collectives import COLLECTIVE, REDUCE_OP
from .._grad_mode import no_grad
from .._tensor import empty


class DataParallel:
    """Wraps an nn.Module for data-parallel training across the ranks of
    backplane.distributed:

        model = dist.DataParallel(net)     # rank 0's parameters on every rank
        loss = loss_fn(model(x_share), y_share)
        opt.zero_grad(); loss.backward()
        model.average_gradients()          # a few large all_reduce calls
        opt.step()

    Gradients are copied into flat buckets of at most bucket_bytes (one
    dtype and device each, made once), each bucket is averaged with one
    all_reduce, and the averages are copied back into the gradients. A
    parameter without a gradient this step contributes zeros and gets none.
    """

    def __init__(self, module, bucket_bytes=25 << 20, root=0):
        from . import broadcast
        self.module = module
        self._params = [p for p in module.parameters()]
        with no_grad():
            for p in self._params:
                broadcast(p, root)
        self._buckets = self._plan(bucket_bytes)

    def __call__(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def parameters(self):
        return self.module.parameters()

    def _plan(self, bucket_bytes):
        """[(flat tensor, [(param, offset, numel)])], in parameter order."""
        groups = {}
        for p in self._params:
            groups.setdefault((p.device.name, p.dtype.name), []).append(p)
        buckets = []
        for params in groups.values():
            current, used = [], 0
            for p in params:
                n = p.numel()
                if current and (used + n) * p.dtype.itemsize > bucket_bytes:
                    buckets.append(self._bucket(current, used))
                    current, used = [], 0
                current.append((p, used, n))
                used += n
            buckets.append(self._bucket(current, used))
        return buckets

    @staticmethod
    def _bucket(entries, total):
        first = entries[0][0]
        return empty(total, dtype=first.dtype, device=first.device), entries

    def average_gradients(self):
        """Replaces every parameter's gradient by its mean over the ranks."""
        with no_grad():
            for flat, entries in self._buckets:
                for p, offset, n in entries:
                    part = flat[offset:offset + n]
                    if p.grad is None:
                        part.zero_()
                    else:
                        part.copy_(p.grad.reshape(n))
                _C.dist_collective(COLLECTIVE["all_reduce"], flat, REDUCE_OP["mean"])
                for p, offset, n in entries:
                    if p.grad is not None:
                        p.grad.copy_(flat[offset:offset + n].reshape(p.shape))
