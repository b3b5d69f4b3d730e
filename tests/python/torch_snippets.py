"""Ordinary PyTorch code, most of it from the examples of PyTorch's
documentation, for test_torch_snippets.py: each snippet runs unchanged with
torch and with backplane imported as torch, and leaves what it computed in
`out` (tensors, numbers, dtypes, or tuples, lists and dicts of them).
Snippets that draw random numbers compare what does not depend on the
generator (shapes, dtypes, ranges, reproducibility)."""

SNIPPETS = {}


def snippet(name, code):
    SNIPPETS[name] = code


# ---- creation --------------------------------------------------------------------

snippet("tensor", """
import torch
out = (torch.tensor([[1., -1.], [1., -1.]]), torch.tensor([0, 1]), torch.tensor(3.5),
       torch.tensor([[0.11111, 0.222222, 0.3333333]], dtype=torch.float64), torch.tensor([]).shape)
""")

snippet("zeros_ones_full", """
import torch
out = (torch.zeros(2, 3), torch.zeros(5), torch.ones(2, 3, dtype=torch.int64), torch.ones((2,)),
       torch.full((2, 3), 3.141592), torch.empty(2, 3).shape, torch.empty((2, 3), dtype=torch.int64).dtype)
""")

snippet("arange", """
import torch
out = (torch.arange(5), torch.arange(1, 4), torch.arange(1, 2.5, 0.5), torch.arange(0, 6, step=2),
       torch.arange(start=1, end=4), torch.arange(end=3), torch.arange(4, dtype=torch.float32))
""")

snippet("linspace_eye", """
import torch
out = (torch.linspace(3, 10, steps=5), torch.linspace(-10, 10, steps=5),
       torch.linspace(start=-10, end=10, steps=5), torch.linspace(-10, 10, 1), torch.eye(3),
       torch.eye(2, 3))
""")

snippet("like", """
import torch
inp = torch.empty(2, 3)
out = (torch.zeros_like(inp), torch.ones_like(inp), torch.full_like(inp, 7),
       torch.zeros_like(torch.arange(3)), inp.new_zeros(2, 2), inp.new_ones((3,)))
""")

snippet("from_numpy", """
import numpy as np
import torch
a = np.array([1, 2, 3])
t = torch.from_numpy(a)
out = (t, torch.from_numpy(np.array([[1.5, 2.5]], dtype=np.float32)), t.numpy())
""")

snippet("dtypes", """
import torch
x = torch.tensor([1.7, -2.3, 0.5])
out = (x.long(), x.int(), x.float(), x.double(), x.half(), x.to(torch.int64), x.bool(),
       x.type_as(torch.tensor([1])), x.dtype, x.long().dtype, torch.float is torch.float32,
       torch.long is torch.int64, x.is_floating_point(), x.long().is_floating_point(),
       x.element_size(), x.double().element_size())
""")

# ---- metadata and reading ---------------------------------------------------------------

snippet("metadata", """
import torch
x = torch.arange(6).reshape(2, 3)
out = (x.numel(), torch.numel(x), x.dim(), x.ndim, x.size(), x.size(1), x.size(-1), x.shape,
       x.shape[0], len(x), x[1, 2].item(), x.tolist(), torch.is_tensor(x), torch.is_tensor([1]))
""")

snippet("item_and_numbers", """
import torch
x = torch.tensor([[1.5, 2.5], [3.5, 4.5]])
out = (x.sum().item(), float(x[0, 0]), int(x[1, 1]), x.mean().item(), x.max().item(),
       x.argmax().item(), round(x[0].sum().item(), 3))
""")

snippet("detach_clone_contiguous", """
import torch
x = torch.arange(6.).reshape(2, 3)
y = x.t().contiguous()
c = x.clone()
c[0, 0] = 10
d = x.detach()
out = (y, x, c, d, y.is_contiguous(), x.t().is_contiguous(), x.contiguous().is_contiguous())
""")

snippet("cpu_and_cuda", """
import torch
x = torch.ones(2)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
out = (x.cpu(), x.cpu().device.type, torch.cuda.is_available() == (torch.cuda.device_count() > 0),
       x.to(device) * 2, x.to(device).is_cuda == torch.cuda.is_available())
""")

# ---- indexing ---------------------------------------------------------------------------------

snippet("indexing_read", """
import torch
x = torch.arange(12).reshape(3, 4)
out = (x[1], x[:, 1], x[1:, ::2], x[-1, -1], x[x > 5], x[[0, 2]], x[..., 0], x[None].shape,
       x[:, None, :].shape, x[1][2])
""")

snippet("indexing_write", """
import torch
x = torch.zeros(3, 4)
x[1] = 1
x[:, 2] = torch.arange(3.)
x[x == 0] = -1
x[0, 0] = 5
out = x
""")

# ---- reductions with dim and keepdim ---------------------------------------------------------

snippet("sum_dim", """
import torch
a = torch.arange(12.).reshape(3, 4)
out = (torch.sum(a), torch.sum(a, 1), a.sum(dim=0, keepdim=True), a.sum((0, 1)),
       torch.sum(a, dim=(0, 1)), a.sum(-1), torch.arange(5).sum(), a.sum(1, True))
""")

snippet("mean_dim", """
import torch
a = torch.tensor([[-0.3, -0.5, 1.5], [0.2, 0.8, -1.0]])
out = (torch.mean(a), a.mean(1), torch.mean(a, 1, True), a.mean(dim=-1, keepdim=True),
       a.mean(dim=(0, 1)))
""")

snippet("max_dim", """
import torch
a = torch.tensor([[1., 5., 3.], [4., 2., 6.]])
values, indices = torch.max(a, 1)
out = (torch.max(a), values, indices, a.max(dim=0), a.max(dim=1, keepdim=True).values,
       a.max(1)[1], torch.max(a, torch.full_like(a, 3.)), a.max(0).indices)
""")

snippet("min_dim", """
import torch
a = torch.tensor([[1., 5., 3.], [4., 2., 6.]])
r = torch.min(a, dim=1)
out = (torch.min(a), r.values, r.indices, a.min(0), a.min(dim=1, keepdim=True),
       torch.min(a, torch.zeros(3)))
""")

snippet("argmax_argmin", """
import torch
a = torch.tensor([[1., 5., 3.], [4., 2., 6.], [0., 9., 1.]])
out = (torch.argmax(a), torch.argmax(a, dim=1), a.argmax(0), a.argmin(dim=0, keepdim=True),
       torch.argmin(a, 1), a.argmax(dim=1, keepdim=True))
""")

snippet("prod_cumsum", """
import torch
a = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
out = (torch.prod(a), torch.prod(a, 1), a.prod(dim=0, keepdim=True), torch.cumsum(a, dim=0),
       a.cumsum(1), torch.arange(5).cumsum(0), a.cumsum(dim=-1))
""")

snippet("std_var", """
import torch
a = torch.tensor([[0.2, -0.6, 1.4, 0.9], [1.1, 0.5, -0.3, 2.0]])
out = (torch.std(a, dim=1), a.var(dim=0, unbiased=False), torch.var(a, 1, keepdim=True),
       a.std(unbiased=True), a.var(dim=(0, 1)), torch.std(a, dim=0, keepdim=True))
""")

snippet("amax_logsumexp", """
import torch
a = torch.tensor([[1., 5., 3.], [4., 2., 6.]])
out = (torch.amax(a, dim=(0, 1)), torch.amax(a, 1), torch.amin(a, dim=0, keepdim=True),
       torch.logsumexp(a, dim=1), a.logsumexp(0, keepdim=True))
""")

snippet("softmax", """
import torch
import torch.nn.functional as F
a = torch.tensor([[1., 2., 3.], [1., 1., 1.]])
out = (torch.softmax(a, dim=1), F.softmax(a, dim=0), a.softmax(-1), F.log_softmax(a, dim=1),
       torch.softmax(a, 0))
""")

# ---- views --------------------------------------------------------------------------------

snippet("view", """
import torch
x = torch.arange(16.).reshape(4, 4)
y = x.view(16)
z = x.view(-1, 8)
y[0] = 100
out = (y, z, x.view(2, 2, 4).shape, x[0, 0], x.view_as(torch.zeros(8, 2)).shape)
""")

snippet("reshape", """
import torch
a = torch.arange(4.)
b = torch.tensor([[0, 1], [2, 3]])
out = (torch.reshape(a, (2, 2)), torch.reshape(b, (-1,)), a.reshape(4, 1), b.reshape(-1),
       a.reshape_as(b))
""")

snippet("flatten", """
import torch
t = torch.arange(8).reshape(2, 2, 2)
out = (torch.flatten(t), torch.flatten(t, start_dim=1), t.flatten(0, 1), t.flatten(),
       t.flatten(1).shape, torch.nn.Flatten()(t).shape)
""")

snippet("unsqueeze_squeeze", """
import torch
x = torch.tensor([1, 2, 3, 4])
y = torch.zeros(2, 1, 2, 1, 2)
out = (torch.unsqueeze(x, 0), torch.unsqueeze(x, 1), x.unsqueeze(-1).shape, y.squeeze().shape,
       torch.squeeze(y, 0).shape, torch.squeeze(y, 1).shape, y.squeeze(-2).shape,
       torch.tensor([[5]]).squeeze())
""")

snippet("expand", """
import torch
x = torch.tensor([[1], [2], [3]])
out = (x.expand(3, 4), x.expand(-1, 4), x.expand(2, 3, 2), x.expand_as(torch.zeros(2, 3, 4)),
       torch.broadcast_to(torch.tensor([1, 2, 3]), (3, 3)))
""")

snippet("transpose_t_permute", """
import torch
x = torch.arange(6.).reshape(2, 3)
y = torch.arange(24).reshape(2, 3, 4)
out = (torch.t(x), x.t(), torch.transpose(x, 0, 1), x.T, x.transpose(1, 0), y.transpose(1, 2),
       y.transpose(-1, 0).shape, y.permute(2, 0, 1), torch.permute(y, (1, 0, 2)).shape,
       torch.t(torch.tensor([1, 2])))
""")

snippet("cat_stack", """
import torch
x = torch.arange(6.).reshape(2, 3)
out = (torch.cat((x, x, x), 0), torch.cat((x, x, x), 1), torch.cat([x, x], dim=-1),
       torch.stack([x, x]), torch.stack((x, x), dim=1), torch.stack([x, x], 2).shape)
""")

snippet("chunk", """
import torch
out = (torch.arange(11).chunk(6), torch.arange(12).chunk(6), torch.arange(13).chunk(6),
       torch.arange(6).reshape(2, 3).chunk(3, dim=1), torch.chunk(torch.arange(5), 2))
""")

snippet("split", """
import torch
a = torch.arange(10).reshape(5, 2)
out = (torch.split(a, 2), torch.split(a, [1, 4]), a.split(1, dim=1), a.split([3, 2], 0))
""")

snippet("index_select_gather_take", """
import torch
x = torch.arange(12.).reshape(3, 4)
indices = torch.tensor([0, 2])
t = torch.tensor([[1., 2.], [3., 4.]])
out = (torch.index_select(x, 0, indices), x.index_select(1, indices),
       torch.gather(t, 1, torch.tensor([[0, 0], [1, 0]])), x.gather(0, torch.tensor([[2, 1, 0, 2]])),
       torch.take(torch.tensor([[4, 3, 5], [6, 7, 8]]), torch.tensor([0, 2, 5])),
       torch.masked_select(x, x > 6), x.masked_select(torch.tensor([True, False, True, False])))
""")

snippet("narrow_unbind_movedim", """
import torch
x = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
y = torch.arange(24).reshape(2, 3, 4)
out = (torch.narrow(x, 0, 0, 2), x.narrow(1, 1, 2), x.narrow(-1, -1, 1), torch.unbind(x),
       x.unbind(1), torch.movedim(y, 1, 0).shape, torch.movedim(y, (1, 2), (0, 1)).shape,
       y.movedim(0, -1))
""")

snippet("flip_roll_repeat", """
import torch
x = torch.arange(8).view(2, 2, 2)
r = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8]).view(4, 2)
out = (torch.flip(x, [0, 1]), x.flip(2), torch.roll(r, 1), torch.roll(r, 1, 0), r.roll(-1, 0),
       torch.roll(r, shifts=(2, 1), dims=(0, 1)), torch.tensor([1, 2, 3]).repeat(4, 2),
       torch.tensor([1, 2, 3]).repeat(4, 2, 1).shape, x.repeat(1, 2, 1))
""")

snippet("tril_triu_stacks", """
import torch
a = torch.arange(1., 13.).reshape(3, 4)
out = (torch.tril(a), a.tril(diagonal=1), torch.tril(a, -1), torch.triu(a), a.triu(1),
       torch.triu(a, diagonal=-1), torch.hstack((torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]))),
       torch.hstack((torch.tensor([[1], [2]]), torch.tensor([[4], [5]]))),
       torch.vstack((torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]))))
""")

snippet("logical_and_friends", """
import torch
a = torch.tensor([True, False, True])
b = torch.tensor([0, 0, 3])
f = torch.tensor([1., float('inf'), -float('inf'), float('nan'), -2.])
x = torch.tensor([[0.5, 1.5], [2.0, 4.0]])
out = (torch.logical_and(a, b), a.logical_or(b), torch.logical_xor(a, b), torch.logical_not(b),
       torch.isnan(f), f.isinf(), torch.isfinite(f), torch.count_nonzero(b),
       torch.count_nonzero(x - 0.5, dim=0), torch.lerp(x, torch.ones(2, 2), 0.25),
       torch.addmm(x, x, x, beta=0.5, alpha=2), torch.exp2(x), torch.log2(x), x.log10(), x.tan(),
       torch.std_mean(x, dim=0), torch.var_mean(x, unbiased=False), torch.empty_like(x).shape,
       torch.randint_like(x, 5).dtype)
""")

# ---- elementwise --------------------------------------------------------------------------------

snippet("masked_fill", """
import torch
x = torch.arange(6.).reshape(2, 3)
i = torch.arange(3)
causal = i.unsqueeze(0) > i.unsqueeze(1)
scores = torch.ones(3, 3)
out = (x.masked_fill(x > 2, -1.), x.masked_fill(x == 0, float('-inf')),
       scores.masked_fill(causal, float('-inf')).softmax(dim=-1),
       torch.masked_fill(x, torch.tensor([True, False, True]), 0.5),
       torch.arange(4).masked_fill(torch.arange(4) % 2 == 0, 7))
""")

snippet("pow", """
import torch
a = torch.tensor([1., 2., 3., 4.])
out = (torch.pow(a, 2), a.pow(3), torch.pow(2, a), a ** 0.5, torch.pow(a, a), a.pow(torch.tensor(2.)))
""")

snippet("method_forms", """
import torch
a = torch.tensor([0.5, 1.5, 2.5, 4.0])
out = (a.exp(), a.sqrt(), a.log(), a.neg().abs(), a.neg(), a.clamp(min=1.5), a.clamp(1.0, 2.0),
       torch.clamp(a, max=2.), a.sigmoid(), a.tanh(), a.add(1), a.sub(a, alpha=2), a.mul(2),
       a.div(2), a.add(a, alpha=0.5), a.rsqrt(), a.reciprocal(), a.square(), a.relu(),
       torch.div(a, 0.5, rounding_mode='floor'), a.clip(1, 2))
""")

snippet("module_functions", """
import torch
a = torch.tensor([[0.5, -1.5], [2.5, -4.0]])
out = (torch.abs(a), torch.exp(a), torch.sqrt(torch.abs(a)), torch.tanh(a), torch.sigmoid(a),
       torch.relu(a), torch.sub(a, 1), torch.mul(a, a), torch.div(a, 2), torch.neg(a),
       torch.sin(a), torch.cos(a), torch.square(a), torch.rsqrt(a.abs()))
""")

snippet("compare_where", """
import torch
a = torch.tensor([1., 2., 3.])
b = torch.tensor([3., 2., 1.])
out = (torch.eq(a, b), a.gt(1), torch.lt(a, 2.5), a.ge(b), a.le(b), a.ne(b), torch.maximum(a, b),
       torch.minimum(a, b), torch.where(a > 1.5, a, b), torch.where(a > b, a, 0.),
       a.where(a > 1, b), torch.allclose(a, a + 1e-9), (a == b).any(), (a > 0).all())
""")

snippet("nonzero", """
import torch
x = torch.tensor([[0.6, 0.0, 0.0, 0.0], [0.0, 0.4, 0.0, 0.0], [0.0, 0.0, 1.2, 0.0],
                  [0.0, 0.0, 0.0, -0.4]])
out = (torch.nonzero(x), x.nonzero(), torch.where(x > 0.5), torch.nonzero(x, as_tuple=True))
""")

# ---- the matmul family -----------------------------------------------------------------------

snippet("mm_matmul", """
import torch
m1 = torch.arange(6.).reshape(2, 3)
m2 = torch.arange(12.).reshape(3, 4)
out = (torch.mm(m1, m2), m1.mm(m2), m1 @ m2, torch.matmul(m1, m2), torch.matmul(m1, torch.ones(3)),
       torch.mv(m1, torch.arange(3.)), torch.dot(torch.arange(3.), torch.arange(3.)),
       torch.outer(torch.arange(3.), torch.arange(2.)))
""")

snippet("bmm", """
import torch
b1 = torch.arange(24.).reshape(2, 3, 4)
b2 = torch.arange(40.).reshape(2, 4, 5)
out = (torch.bmm(b1, b2), b1.bmm(b2).shape, torch.matmul(b1, torch.arange(4.)),
       torch.matmul(b1, torch.arange(20.).reshape(4, 5)).shape)
""")

snippet("einsum", """
import torch
x = torch.arange(5.)
y = torch.arange(4.)
A = torch.arange(6.).reshape(2, 3)
As = torch.arange(24.).reshape(2, 3, 4)
Bs = torch.arange(40.).reshape(2, 4, 5)
Q = torch.arange(48.).reshape(1, 2, 4, 6) / 10
K = torch.arange(60.).reshape(1, 2, 5, 6) / 10
out = (torch.einsum('i,i->', x, x), torch.einsum('i,j->ij', x, y), torch.einsum('bij,bjk->bik', As, Bs),
       torch.einsum('ij->ji', A), torch.einsum('ij->j', A), torch.einsum('ij->', A),
       torch.einsum('ij,kj->ik', A, A), torch.einsum('bhqd,bhkd->bhqk', Q, K),
       torch.einsum('ij,jk', A, torch.ones(3, 2)), torch.einsum('bij->bji', As).shape)
""")

# ---- autograd -----------------------------------------------------------------------------------

snippet("autograd_basic", """
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x ** 2).sum()
y.backward()
out = (x.grad, y.requires_grad, x.is_leaf, y.is_leaf, y.detach().requires_grad)
""")

snippet("autograd_views", """
import torch
w = torch.arange(6., requires_grad=True)
y = w.view(2, 3).t().unsqueeze(0).squeeze(0).flatten()
loss = (y * torch.arange(6.)).sum() + w.reshape(3, 2).expand(2, 3, 2).sum()
loss.backward()
out = w.grad
""")

snippet("autograd_joins", """
import torch
a = torch.ones(2, 3, requires_grad=True)
parts = a.chunk(3, dim=1)
first, rest = a.split([1, 2], dim=1)
s = torch.cat([parts[2] * 2, parts[0]], dim=1).masked_fill(torch.tensor([True, False]), 0.)
t = torch.stack([first.sum(), rest.sum() * 3])
(s.sum() + t.sum()).backward()
out = a.grad
""")

snippet("autograd_reductions", """
import torch
x = torch.tensor([[1., 3.], [4., 2.]], requires_grad=True)
loss = x.max(dim=1).values.sum() + x.mean(dim=0, keepdim=True).sum() * 2 + x.softmax(dim=1)[:, 0].sum()
loss.backward()
out = x.grad
""")

snippet("autograd_matmul_einsum", """
import torch
a = torch.arange(6., requires_grad=True)
A = a.view(2, 3)
B = torch.arange(12.).reshape(3, 4)
loss = torch.einsum('ij,jk->ik', A, B).sum() + torch.mm(A, B).pow(2).mean() + A.t().sum(0).sum()
loss.backward()
out = a.grad
""")

snippet("no_grad", """
import torch
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
@torch.no_grad()
def double(t):
    return t * 2
out = (y.requires_grad, double(x).requires_grad, (x * 2).requires_grad, torch.is_grad_enabled())
""")

# ---- random -----------------------------------------------------------------------------------

snippet("random_shapes", """
import torch
torch.manual_seed(0)
a = torch.rand(2, 3)
b = torch.randn(4)
c = torch.randint(0, 10, (3, 3))
d = torch.randint(5, (6,))
e = torch.randperm(5)
out = (a.shape, a.dtype, b.shape, b.dtype, c.dtype, c.shape, bool(((c >= 0) & (c < 10)).all()),
       bool(((d >= 0) & (d < 5)).all()), sorted(e.tolist()), e.dtype,
       bool((a >= 0).all() and (a < 1).all()), torch.rand((2, 2), dtype=torch.float64).dtype,
       torch.rand_like(a).shape, torch.randn_like(b).dtype)
""")

snippet("manual_seed_repeats", """
import torch
torch.manual_seed(42)
a = torch.rand(3)
p = torch.randperm(6)
torch.manual_seed(42)
b = torch.rand(3)
q = torch.randperm(6)
out = (bool((a == b).all()), p.tolist() == q.tolist())
""")

snippet("generator", """
import torch
g = torch.Generator().manual_seed(7)
a = torch.randn(3, generator=g)
g.manual_seed(7)
b = torch.randn(3, generator=g)
c = torch.randn(3, generator=g)
out = (bool((a == b).all()), bool((a == c).all()), g.initial_seed())
""")

snippet("in_place_samplers", """
import torch
torch.manual_seed(1)
w = torch.empty(300, 5)
w.uniform_(-1, 1)
v = torch.empty(1000).normal_(0, 0.01)
u = torch.zeros(3).uniform_()
out = (bool(((w >= -1) & (w < 1)).all()), w.shape, bool(w.min() < -0.9), bool(w.max() > 0.9),
       bool(v.abs().max() < 0.1), bool(v.std(dim=0) > 0.008), bool(((u >= 0) & (u < 1)).all()))
""")

snippet("normal", """
import torch
torch.manual_seed(2)
a = torch.normal(mean=torch.zeros(1000), std=torch.ones(1000) * 1e-3)
b = torch.normal(2, 3, size=(1, 4))
c = torch.normal(mean=torch.arange(1., 11.), std=torch.tensor(1e-6))
out = (a.shape, bool(a.abs().max() < 0.01), b.shape, b.dtype, c.shape,
       bool((c - torch.arange(1., 11.)).abs().max() < 1e-4))
""")

# ---- nn, optim and data loading -----------------------------------------------------------------

snippet("functional_losses", """
import torch
import torch.nn.functional as F
logits = torch.tensor([[1., 2., 0.5], [0.1, 0.2, 3.0]])
target = torch.tensor([1, 2])
out = (F.cross_entropy(logits, target), F.cross_entropy(logits, target, reduction='sum'),
       F.mse_loss(logits, torch.ones(2, 3)), F.relu(logits - 1), torch.nn.CrossEntropyLoss()(logits, target),
       torch.nn.MSELoss(reduction='none')(logits, torch.zeros(2, 3)))
""")

snippet("module_forward", """
import torch
from torch import nn
net = nn.Sequential(nn.Flatten(), nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 2))
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
x = torch.arange(12.).reshape(2, 3, 2) / 10
out = (net(x), [name for name, _ in net.named_parameters()], net[1].weight.shape, len(net))
""")

snippet("train_loop_dataloader", """
import torch
from torch import nn
from torch.utils.data import TensorDataset, DataLoader
X = torch.linspace(-1, 1, 32).reshape(-1, 1)
y = 3 * X + 0.5
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
model = nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
model = model.to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss()
loader = DataLoader(TensorDataset(X, y), batch_size=8, shuffle=False)
losses = []
for epoch in range(3):
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
out = (losses, model[0].weight, model[2].bias)
""")

snippet("custom_module_adam_state_round_trip", """
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.fc2 = nn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

def make():
    net = Net()
    with torch.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape) * (i + 1))
    return net

def train(net, opt, steps):
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(net(X), y).backward()
        opt.step()

X = torch.linspace(-1, 1, 40).reshape(10, 4)
y = torch.arange(10) % 3
net = make()
opt = torch.optim.Adam(net.parameters(), lr=0.01)
train(net, opt, 3)
saved_net, saved_opt = copy.deepcopy(net.state_dict()), copy.deepcopy(opt.state_dict())
train(net, opt, 2)
net2 = make()
net2.load_state_dict(saved_net)
opt2 = torch.optim.Adam(net2.parameters(), lr=0.5)
opt2.load_state_dict(saved_opt)
train(net2, opt2, 2)
out = (net.fc1.weight, net2.fc1.weight, net2.fc2.bias, saved_opt['state'][0]['exp_avg'],
       sorted(saved_opt['state'][0]), len(saved_opt['state']), opt2.param_groups[0]['lr'],
       saved_opt['param_groups'][0]['params'])
""")

snippet("sgd_momentum_state_and_zero_grad", """
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.tensor([0.5], requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)
for _ in range(3):
    opt.zero_grad()
    ((w * 3).sum() + b.sum() * w.sum()).backward()
    opt.step()
state = opt.state_dict()
w2 = torch.tensor([1.0, -2.0], requires_grad=True)
b2 = torch.tensor([0.5], requires_grad=True)
opt2 = torch.optim.SGD([w2, b2], lr=0.1, momentum=0.9)
opt2.load_state_dict(state)
with torch.no_grad():
    w2.copy_(w)
    b2.copy_(b)
for o, (p, q) in ((opt, (w, b)), (opt2, (w2, b2))):
    o.zero_grad()
    ((p * 3).sum() + q.sum() * p.sum()).backward()
    o.step()
opt.zero_grad(set_to_none=False)
grads_zeroed = [p.grad for p in (w, b)]
opt.zero_grad(set_to_none=True)
out = (w, w2, b2, state['state'][0]['momentum_buffer'], grads_zeroed, w.grad is None)
""")

snippet("dataloader_batches", """
import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(10.), torch.arange(10))
dl = DataLoader(ds, batch_size=4, drop_last=True)
out = (len(dl), [b[0] for b in dl], len(DataLoader(ds, batch_size=4)),
       [y for _, y in DataLoader(ds, batch_size=4)], len(ds), ds[3])
""")

snippet("dataloader_shuffle_seeded", """
import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(10.) * 2, torch.arange(10))
def epoch(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return [y.tolist() for _, y in DataLoader(ds, batch_size=3, shuffle=True, generator=g)]
first, again = epoch(0), epoch(0)
out = (first == again, sorted(sum(first, [])), [len(b) for b in first])
""")

snippet("dataset_collate", """
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return torch.tensor([float(i), -float(i)]), i * i, {'half': i / 2}

dl = DataLoader(Squares(), batch_size=2)
out = [batch for batch in dl]
""")
