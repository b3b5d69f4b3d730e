#!/usr/bin/env python3
"""Trains LeNet (the book's convolutional network, its layers adapted to 8x8
images) on scikit-learn's handwritten digits on one device, and prints the
loss going down and the test accuracy.

LeNet as the book writes it: two convolutions with sigmoid activations and
2x2 average pooling, then three fully connected layers. The book's first
convolution pads a 28x28 image to keep its size, as here for 8x8; its second
5x5 convolution would leave nothing of a 4x4 map, so it is 3x3 with padding
1, and the first dense layer takes 16 * 2 * 2 features instead of 16 * 5 * 5.
Everything of the training runs on the device: data, parameters, forward and
backward passes and Adam's steps.

    PYTHONPATH=<build>/python python3 examples/lenet_digits.py [--device opencl:0]
"""
import argparse
import os
import sys
import time

import backplane as bp
from backplane import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import digits_data  # noqa: E402


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=3, padding=1), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 2 * 2, 120), nn.Sigmoid(),
        nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, digits_data.CLASSES))


def train(device="cpu", epochs=40, batch_size=64, lr=0.01, seed=0, log=print):
    """Trains from bp.manual_seed(seed) with Adam on device; returns (net,
    mean loss of each epoch, test accuracy)."""
    return digits_data.train(make_model, device, epochs, batch_size, lr, seed, images=True, log=log)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu (default), opencl:0, cuda:0, ...")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()
    device = bp.device(args.device)
    print("training LeNet on the digits on {}".format(device))
    t0 = time.perf_counter()
    net, _, test_accuracy = train(device, args.epochs, args.batch_size, args.lr)
    print("test accuracy {:.1%} ({:.1f} s)".format(test_accuracy, time.perf_counter() - t0))


if __name__ == "__main__":
    main()
