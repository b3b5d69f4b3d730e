"""Run by test_distributed.py under mpirun: every backplane.distributed
collective on every dtype and reduction, on cpu:0 and on the rank's
accelerator, checked against NumPy on every rank. Prints "rank R ok"."""
import sys

import numpy as np

import backplane as bp
import backplane.distributed as dist

dist.init(timeout=60)
rank, size = dist.rank(), dist.size()
assert 0 <= rank < size and size >= 2, (rank, size)
assert 0 <= dist.local_rank() < dist.local_size() == size  # one machine


def data(r, dtype, shape=(2, 3)):
    rng = np.random.default_rng(100 + r)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.integers(-9, 10, size=shape).astype(dtype)


REDUCE = {"sum": lambda s: s.sum(axis=0), "max": lambda s: s.max(axis=0),
          "min": lambda s: s.min(axis=0)}

# The same number of passes on every rank: local_device() is opencl:0 on one
# rank, opencl:1 on another and cpu:0 where accelerators run out.
for device in ["cpu:0", dist.local_device().name]:
    for dtype in ["float32", "float64", "int32", "int64", "bool"]:
        mine = data(rank, dtype)
        every = np.stack([data(r, dtype) for r in range(size)])
        for op in (["max", "min"] if dtype == "bool" else ["sum", "mean", "max", "min"]):
            t = dist.all_reduce(bp.tensor(mine, device=device), op)
            assert t.device.name == device
            if op == "mean":
                want = every.sum(axis=0) / size
                if np.issubdtype(every.dtype, np.integer):
                    want = np.trunc(want)
            else:
                want = REDUCE[op](every)
            np.testing.assert_allclose(t.numpy().astype(float), want.astype(float), rtol=1e-6,
                                       err_msg="{} {} {}".format(device, dtype, op))
        t = dist.broadcast(bp.tensor(mine, device=device), root=size - 1)
        np.testing.assert_array_equal(t.numpy(), every[size - 1])
        g = dist.all_gather(bp.tensor(mine, device=device))
        assert g.shape == (size, 2, 3) and g.device.name == device
        np.testing.assert_array_equal(g.numpy(), every)
        if dtype != "bool":
            rows = np.stack([data(rank * 10 + i, dtype, (4,)) for i in range(size)])
            s = dist.reduce_scatter(bp.tensor(rows, device=device), "sum")
            all_rows = [np.stack([data(r * 10 + i, dtype, (4,)) for i in range(size)])
                        for r in range(size)]
            np.testing.assert_allclose(s.numpy().astype(float),
                                       sum(x[rank] for x in all_rows).astype(float), rtol=1e-6)

# A shape that differs on the last rank: every rank gets the error naming it.
shape = (3,) if rank == size - 1 else (2,)
try:
    dist.all_reduce(bp.ones(shape, device="cpu:0"))
    raise AssertionError("a shape mismatch across ranks was not an error")
except bp.ShapeError as e:
    assert "rank {}".format(size - 1) in str(e), str(e)

dist.barrier()
dist.finalize()
print("rank {} ok".format(rank))
sys.stdout.flush()
