"""Convolution layers (since 1.6): PyTorch's Conv1d, Conv2d, Conv3d and
ConvTranspose1d/2d/3d, with PyTorch's arguments, defaults and
initialisation, and Gluon's Conv1D, Conv2D and Conv3D (the MXNet edition's
spelling: channels first, in_channels inferred, an activation, Gluon's
initialisation)."""
from .. import _tensor
from . import functional as F
from . import init as _init
from ._weighted import WeightedLayer, activate, check_activation
from .parameter import Parameter


class _ConvNd(WeightedLayer):
    """The parameters and arguments every convolution layer shares."""

    _n = 2
    _transposed = False
    _default_init = None  # an nn.init object, or None for PyTorch's initialisation

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", output_padding=0, device=None, dtype=None,
                 init=None):
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels and in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError("padding_mode={!r}: only 'zeros' is supported here (pad the input with "
                                      "the mode first)".format(padding_mode))
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError("Invalid padding string {!r}, should be one of {{'valid', 'same'}}"
                                 .format(padding))
            if padding == "same" and any(s != 1 for s in F._ntuple(stride, n, "stride")):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = F._ntuple(kernel_size, n, "kernel_size")
        self.stride = F._ntuple(stride, n, "stride")
        self.padding = padding if isinstance(padding, str) else F._ntuple(padding, n, "padding")
        self.dilation = F._ntuple(dilation, n, "dilation")
        self.output_padding = F._ntuple(output_padding, n, "output_padding")
        self.groups, self.padding_mode = groups, padding_mode
        self._device, self._dtype = device, dtype
        self._init = self._default_init if init is None else init
        self._has_bias = bias
        self.register_parameter("weight", None)
        self.register_parameter("bias", None)
        if in_channels:
            self._make_parameters(in_channels)

    def _weight_shape(self, in_channels):
        if self._transposed:  # (in, out / groups, *kernel), as torch's ConvTranspose
            return (in_channels, self.out_channels // self.groups) + self.kernel_size
        return (self.out_channels, in_channels // self.groups) + self.kernel_size

    def _make_parameters(self, in_channels):
        self.in_channels = in_channels
        self.weight = Parameter(_tensor.empty(*self._weight_shape(in_channels), dtype=self._dtype,
                                              device=self._device))
        if self._has_bias:
            self.bias = Parameter(_tensor.empty(self.out_channels, dtype=self._dtype, device=self._device))
        self.reset_parameters()

    def _convolve(self, x):
        if self.weight is None:
            self._make_parameters(x.shape[-self._n - 1])
        if self._transposed:
            return F._conv(self._n, type(self).__name__, x, self.weight, self.bias, self.stride, self.padding,
                           self.dilation, self.groups, True, self.output_padding)
        return F._conv(self._n, type(self).__name__, x, self.weight, self.bias, self.stride, self.padding,
                       self.dilation, self.groups)

    def forward(self, x):
        return self._convolve(x)

    def extra_repr(self):
        s = "{}, {}, kernel_size={}, stride={}".format(self.in_channels or None, self.out_channels,
                                                       self.kernel_size, self.stride)
        if self.padding not in ((0,) * self._n, "valid"):
            s += ", padding={!r}".format(self.padding)
        if self.dilation != (1,) * self._n:
            s += ", dilation={}".format(self.dilation)
        if self._transposed and self.output_padding != (0,) * self._n:
            s += ", output_padding={}".format(self.output_padding)
        if self.groups != 1:
            s += ", groups={}".format(self.groups)
        if not self._has_bias:
            s += ", bias=False"
        return s


class _TorchConvNd(_ConvNd):
    """torch.nn.Conv1d/2d/3d's constructor: their arguments in torch's order,
    without the transposed ones' output_padding or Gluon's initializer."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device=device, dtype=dtype)


class Conv1d(_TorchConvNd):
    """torch.nn.Conv1d: (N, C_in, L) -> (N, C_out, L_out)."""
    _n = 1


class Conv2d(_TorchConvNd):
    """torch.nn.Conv2d: (N, C_in, H, W) -> (N, C_out, H_out, W_out), H_out =
    floor((H + 2 padding - dilation (kernel_size - 1) - 1) / stride) + 1."""
    _n = 2


class Conv3d(_TorchConvNd):
    """torch.nn.Conv3d: (N, C_in, D, H, W) -> (N, C_out, D_out, H_out, W_out)."""
    _n = 3


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if isinstance(padding, str):
            raise ValueError("{}: padding must be an int or a tuple, not {!r}".format(type(self).__name__, padding))
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding, device, dtype)
        for p, s, d in zip(self.output_padding, self.stride, self.dilation):
            if not 0 <= p < max(s, d):
                raise ValueError("output padding must be smaller than either stride or dilation, got "
                                 "output_padding={}, stride={}, dilation={}".format(
                                     self.output_padding, self.stride, self.dilation))


class ConvTranspose1d(_ConvTransposeNd):
    """torch.nn.ConvTranspose1d: weight (C_in, C_out / groups, K)."""
    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """torch.nn.ConvTranspose2d: (N, C_in, H, W) -> (N, C_out, H_out, W_out), H_out =
    (H - 1) stride - 2 padding + dilation (kernel_size - 1) + output_padding + 1;
    weight (C_in, C_out / groups, kH, kW)."""
    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """torch.nn.ConvTranspose3d."""
    _n = 3


class _GluonConv(_ConvNd):
    """Gluon's nn.Conv1D/2D/3D(channels, kernel_size, strides=1, padding=0,
    dilation=1, groups=1, layout='NC...', activation=None, use_bias=True,
    weight_initializer=None, bias_initializer='zeros', in_channels=0): a
    convolution followed by the activation ('relu', 'sigmoid', 'tanh'),
    in_channels inferred from the first input when 0. Gluon's
    initialisation: weight_initializer, else the one net.initialize(init=...)
    gives, else Uniform(0.07); the bias zeros."""

    _default_init = _init.Uniform()

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout=None,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, device=None, dtype=None):
        want = "NC" + "DHW"[3 - self._n:]
        if layout not in (None, want):
            raise NotImplementedError("layout={!r}: channels first ({!r}) only".format(layout, want))
        check_activation(activation)
        if bias_initializer not in ("zeros", None):
            raise NotImplementedError("bias_initializer={!r}: the bias starts at zeros".format(bias_initializer))
        super().__init__(in_channels, channels, kernel_size, strides, padding, dilation, groups, use_bias,
                         device=device, dtype=dtype, init=weight_initializer)
        self.activation = activation

    def forward(self, x):
        return activate(self.activation, self._convolve(x))


class Conv1D(_GluonConv):
    _n = 1


class Conv2D(_GluonConv):
    _n = 2


class Conv3D(_GluonConv):
    _n = 3
