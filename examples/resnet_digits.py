#!/usr/bin/env python3
"""Trains a small ResNet (the book's residual blocks with batch
normalisation) on scikit-learn's handwritten digits on one device, and prints
the loss going down and the test accuracy.

The blocks are the book's Residual: two 3x3 convolutions, each followed by
batch normalisation, a ReLU between them, the input added back (through a 1x1
convolution where the block changes the channels or the stride) before the
last ReLU. On 8x8 images the network is a 3x3 stem, two stages of two blocks
(32 and 64 channels, the second stage halving the size), global average
pooling and a dense layer. Batch normalisation uses batch statistics while
training and its running statistics in evaluation (net.eval()).

    PYTHONPATH=<build>/python python3 examples/resnet_digits.py [--device opencl:0]
"""
import os
import sys

from backplane import nn
from backplane.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import digits_data  # noqa: E402


class Residual(nn.Module):
    """The book's residual block."""

    def __init__(self, in_channels, channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.conv3 = nn.Conv2d(in_channels, channels, kernel_size=1, stride=strides) if use_1x1conv else None
        self.bn1 = nn.BatchNorm2d(channels)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3 is not None:
            X = self.conv3(X)
        return F.relu(Y + X)


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        Residual(32, 32), Residual(32, 32),
        Residual(32, 64, use_1x1conv=True, strides=2), Residual(64, 64),
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
        nn.Linear(64, digits_data.CLASSES))


def train(device="cpu", epochs=20, batch_size=64, lr=0.01, seed=0, log=print):
    """Trains from bp.manual_seed(seed) with Adam on device, the learning
    rate annealed to 0 along a cosine over all steps (at a constant rate the
    running statistics of batch norm lag behind the weights' last steps, and
    test accuracy swings between 92% and 99% from one epoch to the next);
    returns (net, mean loss of each epoch, test accuracy)."""
    return digits_data.train(make_model, device, epochs, batch_size, lr, seed, images=True, cosine=True, log=log)


if __name__ == "__main__":
    digits_data.main(__doc__, "a small ResNet", train, epochs=20, batch_size=64)
