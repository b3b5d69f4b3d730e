"""SGD with momentum and weight decay, as torch.optim.SGD computes it."""
from .optimizer import ADD, MUL, SUB, Optimizer, binary_out, zeros_like


class SGD(Optimizer):
    """p -= lr * d, where d = grad + weight_decay * p, and with momentum
    d = buf = momentum * buf + d (buf starts at the first d, as in PyTorch)."""

    def __init__(self, params, lr, momentum=0.0, weight_decay=0.0):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError("SGD: lr, momentum and weight_decay must be >= 0")
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

    def _init_state(self, p, group, state):
        super()._init_state(p, group, state)
        if group["momentum"]:
            # Zeros: momentum * 0 + d is the first d exactly.
            state["momentum_buffer"] = zeros_like(p)

    def _update(self, p, grad, group, state):
        s = state["scratch"]
        d = grad
        if group["weight_decay"]:
            binary_out(MUL, p, group["weight_decay"], s)
            d = binary_out(ADD, s, grad, s)
        if group["momentum"]:
            buf = state["momentum_buffer"]
            binary_out(MUL, buf, group["momentum"], buf)
            d = binary_out(ADD, buf, d, buf)
        binary_out(MUL, d, group["lr"], s)
        binary_out(SUB, p, s, p)
