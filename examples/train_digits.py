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
import os
import sys

from backplane import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import digits_data  # noqa: E402
from digits_data import CLASSES, accuracy, epoch_batches  # noqa: E402,F401

FEATURES = 64


def load_data(device, test_fraction=0.2, seed=0):
    """(X_train, y_train, X_test, y_test) on device: rows of 64 pixels
    scaled to [0, 1] (float32), labels int64, split by a fixed shuffle."""
    return digits_data.load(device, test_fraction=test_fraction, seed=seed)


def make_model(hidden=128):
    return nn.Sequential(nn.Linear(FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, CLASSES))


def train(device="cpu", epochs=12, batch_size=128, lr=0.01, seed=0, log=print):
    """Trains from bp.manual_seed(seed) with Adam on device; returns (net,
    mean loss of each epoch, test accuracy)."""
    return digits_data.train(make_model, device, epochs, batch_size, lr, seed, log=log)


if __name__ == "__main__":
    digits_data.main(__doc__, "a 64-128-10 MLP", train, epochs=12, batch_size=128)
