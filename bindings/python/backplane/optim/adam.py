"""Adam, as torch.optim.Adam computes it (L2 weight decay added to the
gradient; no amsgrad)."""
import math

from .optimizer import ADD, DIV, MUL, SQRT, SUB, Optimizer, binary_out, unary_out, zeros_like


class Adam(Optimizer):
    """m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g*g, and
    p -= lr / (1 - b1**t) * m / (sqrt(v) / sqrt(1 - b2**t) + eps)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        if lr < 0 or eps < 0 or weight_decay < 0 or not all(0 <= b < 1 for b in betas):
            raise ValueError("Adam: lr, eps, weight_decay >= 0 and betas in [0, 1)")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay))

    def _init_state(self, p, group, state):
        super()._init_state(p, group, state)
        state["step"] = 0
        state["scratch2"] = zeros_like(p)
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

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
        binary_out(MUL, m, b1, m)
        binary_out(MUL, g, 1 - b1, s2)
        binary_out(ADD, m, s2, m)
        binary_out(MUL, v, b2, v)
        binary_out(MUL, g, g, s2)
        binary_out(MUL, s2, 1 - b2, s2)
        binary_out(ADD, v, s2, v)
        # denominator sqrt(v) / sqrt(1 - b2**t) + eps, in s2
        unary_out(SQRT, v, s2)
        binary_out(DIV, s2, math.sqrt(1 - b2 ** t), s2)
        binary_out(ADD, s2, group["eps"], s2)
        binary_out(DIV, m, s2, s)
        binary_out(MUL, s, group["lr"] / (1 - b1 ** t), s)
        binary_out(SUB, p, s, p)
