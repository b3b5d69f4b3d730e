"""Adam, as torch.optim.Adam computes it (L2 weight decay added to the
gradient; no amsgrad), and the state and steps AdamW shares with it."""
import math

from .optimizer import ADD, DIV, MUL, SQRT, SUB, Optimizer, binary_out, unary_out, zeros_like


class _Moments(Optimizer):
    """What Adam and AdamW keep and compute alike, in PyTorch's order of
    operations: the step count, the first moment m (exp_avg), the second v
    (exp_avg_sq), a second scratch tensor, m's update and the bias-corrected
    denominator. v's update is each one's own: PyTorch's Adam and AdamW
    multiply in different orders, which round differently."""

    def _init_state(self, p, group, state):
        super()._init_state(p, group, state)
        state["step"] = 0
        state["scratch2"] = zeros_like(p)
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    @staticmethod
    def _first_moment(m, g, b1, tmp):
        """m = b1 m + (1 - b1) g, through tmp."""
        binary_out(MUL, m, b1, m)
        binary_out(MUL, g, 1 - b1, tmp)
        binary_out(ADD, m, tmp, m)

    @staticmethod
    def _denominator(v, b2, t, eps, out):
        """sqrt(v) / sqrt(1 - b2**t) + eps, into out."""
        unary_out(SQRT, v, out)
        binary_out(DIV, out, math.sqrt(1 - b2 ** t), out)
        binary_out(ADD, out, eps, out)


class Adam(_Moments):
    """m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g*g, and
    p -= lr / (1 - b1**t) * m / (sqrt(v) / sqrt(1 - b2**t) + eps)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        if lr < 0 or eps < 0 or weight_decay < 0 or not all(0 <= b < 1 for b in betas):
            raise ValueError("Adam: lr, eps, weight_decay >= 0 and betas in [0, 1)")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay))

    def _update(self, p, grad, group, state):
        b1, b2 = group["betas"]
        s, s2 = state["scratch"], state["scratch2"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        state["step"] += 1
        t = state["step"]
        g = grad
        if group["weight_decay"]:
            binary_out(MUL, p, group["weight_decay"], s)
            g = binary_out(ADD, s, grad, s)
        self._first_moment(m, g, b1, s2)
        binary_out(MUL, v, b2, v)
        binary_out(MUL, g, g, s2)
        binary_out(MUL, s2, 1 - b2, s2)
        binary_out(ADD, v, s2, v)
        self._denominator(v, b2, t, group["eps"], s2)
        binary_out(DIV, m, s2, s)
        binary_out(MUL, s, group["lr"] / (1 - b1 ** t), s)
        binary_out(SUB, p, s, p)
