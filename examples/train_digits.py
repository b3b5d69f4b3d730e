#!/usr/bin/env python3
"""Trains a small MLP (64-128-10) on scikit-learn's handwritten digits (8x8
images, shipped inside scikit-learn: nothing is downloaded) on one device,
and prints the loss going down and the test accuracy.

Everything of the training lives on the device: the data set is copied
there once, the parameters are made there (net.to(device)), the forward
pass, the backward pass (bp autograd, made of the same routed operators)
and the optimiser's in-place steps all run there. Only the loss of each
epoch and the final accuracy come back to the host.

    PYTHONPATH=<build>/python python3 examples/train_digits.py [--device opencl:0]
"""
import argparse
import time

import numpy as np

import backplane as bp
from backplane import nn, optim

FEATURES, CLASSES = 64, 10


def load_data(device, test_fraction=0.2, seed=0):
    """(X_train, y_train, X_test, y_test) on device: pixels scaled to [0, 1]
    (float32), labels int64, split by a fixed shuffle."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.RandomState(seed).permutation(len(X))
    test, train = np.split(order, [int(len(X) * test_fraction)])
    return tuple(bp.tensor(a, device=device) for a in (X[train], y[train], X[test], y[test]))


def make_model(hidden=128):
    return nn.Sequential(nn.Linear(FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, CLASSES))


def epoch_batches(n, batch_size, epoch, seed=0):
    """The index arrays of one epoch's batches, a shuffle fixed by (seed,
    epoch): the same batches in every run (and in PyTorch's, in the test)."""
    order = np.random.RandomState(seed + 1 + epoch).permutation(n)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def accuracy(net, X, y):
    """The fraction of rows of X whose largest logit is their label."""
    with bp.no_grad():
        return (net(X).argmax(axis=1) == y).float().mean().item()


def train(device="cpu", epochs=12, batch_size=128, lr=0.01, seed=0, log=print):
    """Trains from bp.manual_seed(seed) with Adam on device; returns (net,
    mean loss of each epoch, test accuracy)."""
    X, y, X_test, y_test = load_data(device)
    bp.manual_seed(seed)
    net = make_model().to(device)
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.Adam(net.parameters(), lr=lr)
    epoch_losses = []
    for epoch in range(epochs):
        batches = epoch_batches(len(X), batch_size, epoch, seed)
        total = bp.zeros((), device=device)  # summed on the device: one read per epoch
        for idx in batches:
            idx = bp.tensor(idx, device=device)
            loss = loss_fn(net(X[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total = total + loss.detach()
        epoch_losses.append(total.item() / len(batches))
        log("epoch {:2d}  loss {:.4f}".format(epoch + 1, epoch_losses[-1]))
    return net, epoch_losses, accuracy(net, X_test, y_test)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu (default), opencl:0, cuda:0, ...")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()
    device = bp.device(args.device)
    print("training a 64-128-10 MLP on the digits on {}".format(device))
    t0 = time.perf_counter()
    net, _, test_accuracy = train(device, args.epochs, args.batch_size, args.lr)
    print("parameters on {}; test accuracy {:.1%} ({:.1f} s)".format(
        net[0].weight.device, test_accuracy, time.perf_counter() - t0))


if __name__ == "__main__":
    main()
