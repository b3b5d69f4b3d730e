"""backplane.nn: layers, losses and initialisers for training on any device,
shaped like torch.nn, with Gluon's spellings as aliases (nn.Dense, net.add,
net.initialize(init=..., ctx=...), param.data()).

    net = nn.Sequential(nn.LazyLinear(1)).to(device=bp.try_gpu())
    net = nn.Sequential(); net.add(nn.Dense(1)); net.initialize(ctx=bp.try_gpu())

Gradients come from the core's autograd (Tensor.backward); optimisers are in
backplane.optim."""
from . import functional, init
from .activation import Flatten, ReLU, Sigmoid, Tanh
from .batchnorm import BatchNorm, BatchNorm1d, BatchNorm2d
from .attention import MultiheadAttention
from .dropout import Dropout
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,
                      AdaptiveMaxPool2d, AdaptiveMaxPool3d, AvgPool1d, AvgPool2d, AvgPool2D, AvgPool3d,
                      GlobalAvgPool2D, GlobalMaxPool2D, MaxPool1d, MaxPool2d, MaxPool2D, MaxPool3d)
from .container import ModuleList, Sequential
from .conv import (Conv1D, Conv1d, Conv2D, Conv2d, Conv3D, Conv3d, ConvTranspose1d, ConvTranspose2d,
                   ConvTranspose3d)
from .linear import Dense, LazyLinear, Linear
from .loss import CrossEntropyLoss, MSELoss
from .module import Module
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .parameter import Parameter
from .softmax import LogSoftmax, Softmax
from .smooth_activation import GELU, SiLU
from .sparse import Embedding
from .transformer import TransformerEncoder, TransformerEncoderLayer
from . import utils

__all__ = ["Module", "Parameter", "Linear", "LazyLinear", "Dense", "Sequential", "ReLU",
           "Sigmoid", "Tanh", "Flatten", "MSELoss", "CrossEntropyLoss", "functional", "init",
           "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm",
           "MultiheadAttention", "ModuleList", "Softmax", "LogSoftmax",
           # the training kit of transformers (1.6)
           "Embedding", "GELU", "SiLU", "utils",
           # convolution (since 1.6)
           "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "Conv1D", "Conv2D", "Conv3D",
           "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "MaxPool2D", "AvgPool2D", "GlobalAvgPool2D", "GlobalMaxPool2D", "Dropout",
           "TransformerEncoderLayer", "TransformerEncoder"]
