"""Pooling layers, torch.nn's spellings (MaxPool1d/2d/3d, AvgPool1d/2d/3d,
AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d) and Gluon's (MaxPool2D,
AvgPool2D, GlobalAvgPool2D, GlobalMaxPool2D of the book's MXNet edition):
no parameters, the functions of nn.functional inside."""
from . import _spatial as F
from .module import Module


class _MaxPoolNd(Module):
    _rank = 0

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, x):
        return F._max_pool(self._rank, type(self).__name__, x, self.kernel_size, self.stride, self.padding,
                           self.dilation, self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}".format(
            self.kernel_size, self.stride if self.stride is not None else self.kernel_size, self.padding,
            self.dilation, self.ceil_mode)


class MaxPool1d(_MaxPoolNd):
    _rank = 1


class MaxPool2d(_MaxPoolNd):
    _rank = 2


class MaxPool3d(_MaxPoolNd):
    _rank = 3


class _AvgPoolNd(Module):
    _rank = 0

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, x):
        return F._avg_pool(self._rank, type(self).__name__, x, self.kernel_size, self.stride, self.padding,
                           self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return "kernel_size={}, stride={}, padding={}".format(
            self.kernel_size, self.stride if self.stride is not None else self.kernel_size, self.padding)


class AvgPool1d(_AvgPoolNd):
    _rank = 1

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)


class AvgPool2d(_AvgPoolNd):
    _rank = 2


class AvgPool3d(_AvgPoolNd):
    _rank = 3


class _AdaptivePool(Module):
    _rank, _max = 0, False

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, x):
        name = type(self).__name__
        size = F._adaptive_size(name, x, self._rank, self.output_size)
        return F._C.adaptive_pool(self._max, x, size, bool(self.return_indices))

    def extra_repr(self):
        return "output_size={}".format(self.output_size)


class AdaptiveAvgPool1d(_AdaptivePool):
    _rank = 1

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    _rank = 2

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveAvgPool3d(_AdaptivePool):
    _rank = 3

    def __init__(self, output_size):
        super().__init__(output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    _rank, _max = 1, True


class AdaptiveMaxPool2d(_AdaptivePool):
    _rank, _max = 2, True


class AdaptiveMaxPool3d(_AdaptivePool):
    _rank, _max = 3, True


# ---- Gluon's spellings (d2l's MXNet edition) ---------------------------------

class MaxPool2D(MaxPool2d):
    """Gluon's nn.MaxPool2D(pool_size=(2, 2), strides=None, padding=0):
    strides None takes the pool size."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False):
        super().__init__(pool_size, strides, padding, ceil_mode=ceil_mode)


class AvgPool2D(AvgPool2d):
    """Gluon's nn.AvgPool2D(pool_size=(2, 2), strides=None, padding=0,
    count_include_pad=True)."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(pool_size, strides, padding, ceil_mode, count_include_pad)


class GlobalAvgPool2D(Module):
    """Gluon's nn.GlobalAvgPool2D: the mean over H and W, [N, C, 1, 1]."""

    def forward(self, x):
        return F.global_avg_pool(x, 2)


class GlobalMaxPool2D(Module):
    """Gluon's nn.GlobalMaxPool2D: the maximum over H and W, [N, C, 1, 1]."""

    def forward(self, x):
        return F.global_max_pool(x, 2)
