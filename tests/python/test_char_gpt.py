"""examples/char_gpt.py: the character-level GPT learns the docs on cpu:0
and opencl:0 and writes a sample; from the same initial weights over the
same batches its loss curve over 50 steps of AdamW with warm-up, cosine
schedule and gradient clipping is PyTorch's within 1e-4 relative."""
import importlib.util
import math
import os

import numpy as np
import pytest

import backplane as bp
from conftest import REPO, require


# Minutes of training in the sanitizer build (Debug, ASan): its run covers
# the same operators in the unit tests; the Release run trains the networks.
pytestmark = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                                reason="networks are trained in the Release run, not under ASan")

def _example():
    path = os.path.join(REPO, "examples", "char_gpt.py")
    spec = importlib.util.spec_from_file_location("char_gpt", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gpt = _example()


@pytest.mark.parametrize("name", ["cpu:0", "opencl:0"])
def test_the_gpt_learns_the_docs_and_writes(name):
    dev = require(name)
    lines = []
    model, vocab, losses = gpt.train(dev, steps=60, log=lines.append)
    assert losses[0] > 0.9 * math.log(len(vocab))  # starts near uniform guessing
    assert losses[-1] < 0.75 * losses[0], lines
    assert all(p.device == dev for p in model.parameters())
    text = gpt.sample(model, vocab, length=40)
    assert text.startswith("# ") and len(text) == 42 and set(text) <= set(vocab.chars)


def _torch_twin(torch, vocab_size, model):
    """char_gpt.GPT in torch (attention written out: Debian's torch 1.13 has
    no scaled_dot_product_attention), with the same parameter names."""
    tnn, F = torch.nn, torch.nn.functional

    class Attention(tnn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.n_heads, self.qkv, self.proj = heads, tnn.Linear(d, 3 * d), tnn.Linear(d, d)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = (t.reshape(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)
                       for t in self.qkv(x).split(C, dim=2))
            s = q @ k.transpose(-2, -1) / math.sqrt(C // self.n_heads)
            s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
            return self.proj((F.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, C))

    class Block(tnn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.ln1, self.attn, self.ln2 = tnn.LayerNorm(d), Attention(d, heads), tnn.LayerNorm(d)
            self.mlp = tnn.Sequential(tnn.Linear(d, 4 * d), tnn.GELU(), tnn.Linear(4 * d, d),
                                      tnn.Dropout(0.0))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(tnn.Module):
        def __init__(self):
            super().__init__()
            d = model.tok.weight.shape[1]
            self.tok, self.pos = tnn.Embedding(vocab_size, d), tnn.Embedding(model.context, d)
            self.blocks = tnn.Sequential(*[Block(d, 4) for _ in range(len(model.blocks))])
            self.ln, self.head = tnn.LayerNorm(d), tnn.Linear(d, vocab_size)

        def forward(self, ids):
            return self.head(self.ln(self.blocks(self.tok(ids) + self.pos(torch.arange(ids.shape[1])))))

    twin = GPT()
    twin.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in model.state_dict().items()})
    return twin


@pytest.mark.parametrize("name", ["cpu:0", "opencl:0"])
def test_the_loss_curve_is_pytorchs(name):
    torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")
    dev = require(name)
    torch.set_num_threads(1)
    steps, warmup, lr = 50, 5, 3e-3
    text = gpt.load_text()
    vocab = gpt.Vocabulary(text)
    data = vocab.encode(text)
    bp.manual_seed(0)
    model = gpt.GPT(len(vocab)).to(dev)
    twin = _torch_twin(torch, len(vocab), model)
    opt = gpt.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
    sched = gpt.schedule(opt, steps, warmup)
    topt = torch.optim.AdamW(twin.parameters(), lr=lr, weight_decay=0.1)
    tsched = torch.optim.lr_scheduler.SequentialLR(
        topt, [torch.optim.lr_scheduler.LinearLR(topt, start_factor=0.1, total_iters=warmup),
               torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=steps - warmup)],
        milestones=[warmup])
    ours, theirs = [], []
    for x, y in gpt.batches(data, model.context, 16, steps):
        bx, by = bp.tensor(x, device=dev), bp.tensor(y, device=dev)
        logits = model(bx)
        loss = gpt.F.cross_entropy(logits.reshape(-1, logits.shape[-1]), by.reshape(-1))
        opt.zero_grad()
        loss.backward()
        gpt.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        ours.append(loss.item())
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        tlogits = twin(tx)
        tloss = torch.nn.functional.cross_entropy(tlogits.reshape(-1, tlogits.shape[-1]), ty.reshape(-1))
        topt.zero_grad()
        tloss.backward()
        torch.nn.utils.clip_grad_norm_(twin.parameters(), 1.0)
        topt.step()
        tsched.step()
        theirs.append(tloss.item())
    assert ours[-1] < ours[0]
    worst = max(abs(a - b) / abs(b) for a, b in zip(ours, theirs))
    print("largest relative difference of the loss over {} steps on {}: {:.2e}".format(steps, name, worst))
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
