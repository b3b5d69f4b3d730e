"""Batch normalisation: BatchNorm1d and BatchNorm2d (torch.nn's), and
Gluon's nn.BatchNorm. In training each channel is normalised with the
batch's mean and biased variance over every other axis, and the running
statistics (buffers running_mean, running_var and num_batches_tracked, in
state_dict) move toward them; in evaluation the running statistics are
used. The work is the core's bp_batch_norm (F.batch_norm)."""
from .. import _tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


class _BatchNorm(Module):
    """PyTorch's _BatchNorm: the buffers, train()/eval() and momentum (None:
    the cumulative average, 1 / num_batches_tracked)."""

    _dims = ()  # input ranks the layer takes
    _name = "BatchNorm"

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.register_parameter("weight", None)
        self.register_parameter("bias", None)
        if affine:
            self.weight = Parameter(_tensor.ones(num_features, dtype=dtype, device=device))
            self.bias = Parameter(_tensor.zeros(num_features, dtype=dtype, device=device))
        if track_running_stats:
            self.register_buffer("running_mean", _tensor.zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", _tensor.ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", _tensor.tensor(0, dtype="int64", device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1.0)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            self.weight.fill_(1.0)
            self.bias.zero_()

    def _initialize(self, init):
        pass  # the scale starts at 1 and the shift at 0, whatever the weights' initializer

    def _check_input(self, x):
        if x.ndim not in self._dims:
            raise ValueError("{}: expected {} input (got {}D input)".format(
                self._name, " or ".join("{}D".format(d) for d in self._dims), x.ndim))

    def forward(self, x):
        self._check_input(x)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        # Training normalises with the batch's statistics, as does evaluation
        # without running statistics.
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(x, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, use_batch, factor, self.eps)

    def extra_repr(self):
        return "{}, eps={}, momentum={}, affine={}, track_running_stats={}".format(
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats)


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) inputs."""

    _dims = (2, 3)
    _name = "BatchNorm1d"


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) inputs."""

    _dims = (4,)
    _name = "BatchNorm2d"


class BatchNorm(Module):
    """Gluon's nn.BatchNorm(axis=1, momentum=0.9, epsilon=1e-5, center=True,
    scale=True, use_global_stats=False, in_channels=0): parameters gamma
    (scale) and beta (center), running_mean and running_var, made on the
    first call when in_channels is 0. MXNet's momentum is the weight of the
    old running value (running = momentum * running + (1 - momentum) *
    batch), PyTorch's 1 - momentum; the batch variance the running one moves
    toward is the unbiased one, as PyTorch's (MXNet's own operator takes the
    biased one: the two differ by n / (n - 1) for n values per channel).
    use_global_stats normalises with the running statistics in training
    too. Channels-first only (axis=1)."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 in_channels=0, **kwargs):
        super().__init__()
        if axis != 1:
            raise NotImplementedError("BatchNorm: axis={}: only channels-first (axis=1) layouts".format(axis))
        unknown = set(kwargs) - {"beta_initializer", "gamma_initializer", "running_mean_initializer",
                                 "running_variance_initializer", "prefix", "params"}
        if unknown:
            raise TypeError("BatchNorm: unexpected arguments {}".format(sorted(unknown)))
        self.momentum, self.epsilon = momentum, epsilon
        self.center, self.scale, self.use_global_stats = center, scale, use_global_stats
        self.in_channels = 0
        self.register_parameter("gamma", None)
        self.register_parameter("beta", None)
        self.register_buffer("running_mean", None)
        self.register_buffer("running_var", None)
        if in_channels:
            self._make_parameters(in_channels)

    def _make_parameters(self, channels):
        self.in_channels = channels
        dev, dt = self._device, self._dtype
        if self.scale:
            self.gamma = Parameter(_tensor.ones(channels, dtype=dt, device=dev))
        if self.center:
            self.beta = Parameter(_tensor.zeros(channels, dtype=dt, device=dev))
        self.running_mean = _tensor.zeros(channels, dtype=dt, device=dev)
        self.running_var = _tensor.ones(channels, dtype=dt, device=dev)

    def _initialize(self, init):
        pass

    def forward(self, x):
        if x.ndim < 2:
            raise ValueError("BatchNorm: expected an input of 2 or more axes (N, C, ...), got {}D".format(x.ndim))
        if self.running_mean is None:
            self._make_parameters(x.shape[1])
        use_batch = self.training and not self.use_global_stats
        return F.batch_norm(x, self.running_mean, self.running_var, self.gamma, self.beta, use_batch,
                            1.0 - self.momentum, self.epsilon)

    def extra_repr(self):
        return "axis=1, eps={}, momentum={}, in_channels={}".format(self.epsilon, self.momentum, self.in_channels)
