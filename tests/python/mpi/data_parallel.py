"""Run by test_distributed.py under mpirun -np 2: the digits MLP trained
data-parallel (each rank on its half of every batch, gradients averaged by
DataParallel) ends with the parameters of one process trained on the whole
batches, which rank 0 also computes, alone, from the same initial weights.
Prints "rank R ok" with the largest difference."""
import importlib.util
import os
import sys

import numpy as np

import backplane as bp
import backplane.distributed as dist
from backplane import nn, optim

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
spec = importlib.util.spec_from_file_location("train_digits", os.path.join(REPO, "examples",
                                                                          "train_digits.py"))
td = importlib.util.module_from_spec(spec)
spec.loader.exec_module(td)

dist.init(timeout=120)
rank, size = dist.rank(), dist.size()
device = bp.Device(sys.argv[1]) if len(sys.argv) > 1 else dist.local_device()
X, y, _, _ = td.load_data(device)
STEPS, BATCH = 12, 128


def batches():
    n = 0
    for epoch in range(3):
        for idx in td.epoch_batches(len(X), BATCH, epoch):
            if len(idx) != BATCH:
                continue  # equal shares: a mean of means is the mean
            yield idx
            n += 1
            if n == STEPS:
                return


def train(net, share):
    opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    model = dist.DataParallel(net) if share else None
    for idx in batches():
        if share:
            idx = np.array_split(idx, size)[rank]
        i = bp.tensor(idx, device=device)
        loss = loss_fn(net(X[i]), y[i])
        opt.zero_grad()
        loss.backward()
        if share:
            model.average_gradients()
        opt.step()
    return {k: v.numpy() for k, v in net.state_dict().items()}


# Different seeds per rank: DataParallel must make rank 0's weights everyone's.
bp.manual_seed(rank)
net = td.make_model().to(device)
bp.manual_seed(0)
reference_init = td.make_model().to(device).state_dict()
parallel = train(net, share=True)
if rank == 0:
    alone = td.make_model().to(device)
    alone.load_state_dict(reference_init)
    whole = train(alone, share=False)
    worst = max(float(np.abs(parallel[k] - whole[k]).max()) for k in whole)
    assert worst < 1e-4, "data-parallel parameters differ from one process's by {}".format(worst)
    print("rank 0 ok: largest difference {:.2e}".format(worst))
else:
    print("rank {} ok".format(rank))
sys.stdout.flush()
dist.finalize()
