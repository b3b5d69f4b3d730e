"""AdamW, as torch.optim.AdamW (1.13) computes it: the weight decay is
decoupled from the gradient (the parameter is first scaled by 1 - lr *
weight_decay), then Adam's step, optionally with amsgrad's running maximum
of the second moment."""
from .._tensor import OP
from .adam import _Moments
from .optimizer import ADD, DIV, MUL, binary_out, zeros_like

MAXIMUM = OP["maximum"]


class AdamW(_Moments):
    """p *= 1 - lr * weight_decay; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2)
    g*g (with amsgrad, v_max = max(v_max, v) stands for v below); then
    p += -lr / (1 - b1**t) * m / (sqrt(v) / sqrt(1 - b2**t) + eps), each in
    PyTorch's order of operations. maximize ascends (g is the negated
    gradient). foreach and capturable choose PyTorch's kernels and CUDA
    graphs: accepted, with one path here."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError("Invalid beta parameter at index {}: {}".format(i, beta))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable))

    def _init_state(self, p, group, state):
        super()._init_state(p, group, state)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(p)

    def _update(self, p, grad, group, state):
        b1, b2 = group["betas"]
        lr, eps = group["lr"], group["eps"]
        s, s2 = state["scratch"], state["scratch2"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        state["step"] += 1
        t = state["step"]
        g = binary_out(MUL, grad, -1.0, s) if group["maximize"] else grad
        binary_out(MUL, p, 1 - lr * group["weight_decay"], p)
        # exp_avg.mul_(b1).add_(g, alpha=1 - b1)
        self._first_moment(m, g, b1, s2)
        # exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2)
        binary_out(MUL, v, b2, v)
        binary_out(MUL, g, 1 - b2, s2)
        binary_out(MUL, s2, g, s2)
        binary_out(ADD, v, s2, v)
        if group["amsgrad"]:
            v = binary_out(MAXIMUM, state["max_exp_avg_sq"], v, state["max_exp_avg_sq"])
        # denom = (v.sqrt() / sqrt(1 - b2**t)).add_(eps), in s2
        self._denominator(v, b2, t, eps, s2)
        # p.addcdiv_(m, denom, value=-lr / (1 - b1**t))
        binary_out(MUL, m, -lr / (1 - b1 ** t), s)
        binary_out(DIV, s, s2, s)
        binary_out(ADD, p, s, p)
