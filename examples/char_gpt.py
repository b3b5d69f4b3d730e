#!/usr/bin/env python3
"""Trains a small character-level GPT on Backplane's own documentation (the
Markdown files of docs/, shipped with the repository) on one device, prints
the loss going down, then prints a sample of text it writes.

The model is GPT's: token and position embeddings, blocks of layer norm,
causal self-attention and a GELU MLP, each added back to its input, a final
layer norm and a linear head; trained with AdamW under a warm-up and cosine
learning-rate schedule and gradient clipping, as PyTorch users write it.
Everything runs on the device; only the loss and the sampled characters come
back to the host.

    PYTHONPATH=<build>/python python3 examples/char_gpt.py [--device opencl:0] [--steps 300]
"""
import argparse
import glob
import math
import os
import time

import numpy as np

import backplane as bp
from backplane import nn, optim
from backplane.nn import functional as F

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")


def load_text(folder=DOCS):
    """The docs' Markdown, concatenated in file-name order."""
    parts = []
    for path in sorted(glob.glob(os.path.join(folder, "*.md"))):
        with open(path, encoding="utf-8") as f:
            parts.append(f.read())
    return "\n".join(parts)


class Vocabulary:
    """The characters of a text, each a number."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self):
        return len(self.chars)

    def encode(self, text):
        return np.array([self.index[c] for c in text], dtype=np.int64)

    def decode(self, ids):
        return "".join(self.chars[int(i)] for i in ids)


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, dropout):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.dropout = dropout

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        heads = lambda t: t.reshape(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(heads(q), heads(k), heads(v), is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, d_model, n_heads, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, dropout)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model), nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, context=64, d_model=64, n_heads=4, n_layers=2, dropout=0.0):
        super().__init__()
        self.context = context
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(context, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, n_heads, dropout) for _ in range(n_layers)])
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        T = ids.shape[1]
        positions = bp.arange(T, device=ids.device)
        return self.head(self.ln(self.blocks(self.tok(ids) + self.pos(positions))))


def batches(data, context, batch_size, steps, seed=0):
    """The (input, target) index arrays of each step: random windows of the
    text, targets shifted by one, from a fixed seed (the same in every run)."""
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        starts = rng.randint(0, len(data) - context - 1, size=batch_size)
        x = np.stack([data[s:s + context] for s in starts])
        y = np.stack([data[s + 1:s + context + 1] for s in starts])
        yield x, y


def schedule(optimizer, steps, warmup):
    """Linear warm-up for `warmup` steps, then cosine annealing to zero."""
    return optim.lr_scheduler.SequentialLR(
        optimizer,
        [optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=warmup),
         optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps - warmup)],
        milestones=[warmup])


def train(device="cpu", steps=300, batch_size=16, lr=3e-3, seed=0, log=print, model=None):
    """Trains from bp.manual_seed(seed) on device; returns (model,
    vocabulary, the loss of each step)."""
    text = load_text()
    vocab = Vocabulary(text)
    data = vocab.encode(text)
    bp.manual_seed(seed)
    model = (model or GPT(len(vocab))).to(device)
    opt = optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
    sched = schedule(opt, steps, warmup=max(1, steps // 10))
    losses = []
    for step, (x, y) in enumerate(batches(data, model.context, batch_size, steps, seed)):
        x, y = bp.tensor(x, device=device), bp.tensor(y, device=device)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
        if step % 25 == 0 or step == steps - 1:
            log("step {:4d}  loss {:.4f}".format(step, losses[-1]))
    return model, vocab, losses


def sample(model, vocab, prompt="# ", length=200, temperature=0.8, seed=0):
    """Text the model writes after prompt, drawing each character from its
    softmax at the temperature (the draw on the host, from a fixed seed)."""
    rng = np.random.RandomState(seed)
    device = next(model.parameters()).device
    ids = list(vocab.encode(prompt))
    model.eval()
    with bp.no_grad():
        for _ in range(length):
            window = bp.tensor(np.array([ids[-model.context:]], dtype=np.int64), device=device)
            probs = F.softmax(model(window)[0, -1] / temperature, dim=-1).numpy().astype(np.float64)
            ids.append(int(rng.choice(len(probs), p=probs / probs.sum())))
    model.train()
    return vocab.decode(ids)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu (default), opencl:0, cuda:0, ...")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    args = parser.parse_args()
    device = bp.device(args.device)
    print("training a character-level GPT on docs/*.md on {}".format(device))
    t0 = time.perf_counter()
    model, vocab, losses = train(device, args.steps, args.batch_size, args.lr)
    print("loss {:.3f} -> {:.3f} in {} steps ({:.1f} s); uniform guessing is {:.3f}".format(
        losses[0], losses[-1], len(losses), time.perf_counter() - t0, math.log(len(vocab))))
    print("sample:\n" + sample(model, vocab))


if __name__ == "__main__":
    main()
