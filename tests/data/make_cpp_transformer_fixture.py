#!/usr/bin/env python3
"""Writes cpp_transformer_fixture.safetensors beside this script: PyTorch's
numbers for the transformer kit of bindings/cpp/backplane_nn.hpp, checked by
tests/core/test_cpp_transformer.cpp.

For each layer (Embedding, the activations, TransformerEncoderLayer post-
and pre-norm, TransformerEncoder) it stores, under the layer's prefix, the
weights by torch's state_dict names, the inputs, the output, and the
gradients of the scalar loss sum(out * upstream) (upstream a fixed random
tensor) with respect to the input ("<prefix>.<input>_grad") and to every
weight ("<prefix>.grad.<name>"); for AdamW, a Linear's parameters after each
of a few steps. Dropout is 0 so that the numbers are deterministic.

Run with the torch of the machine (1.13 here): python3 make_cpp_transformer_fixture.py.
The file is written by hand (no safetensors package needed): an 8-byte
little-endian header length, the JSON header, the raw little-endian data.
"""
import json
import os
import struct

import torch

DTYPES = {torch.float32: "F32", torch.int64: "I64"}


def save(path, tensors, metadata):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        data = t.numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = metadata
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def with_grads(out, prefix, module, inputs, store):
    """Stores out, the loss's gradients of the inputs (a dict name -> leaf)
    and of module's parameters, under prefix."""
    upstream = torch.randn(out.shape)
    (out * upstream).sum().backward()
    store[prefix + ".upstream"] = upstream
    store[prefix + ".out"] = out
    for name, x in inputs.items():
        store[prefix + "." + name] = x
        if x.grad is not None:
            store[prefix + "." + name + "_grad"] = x.grad
    if module is not None:
        for name, p in module.named_parameters():
            store[prefix + "." + name] = p
            store[prefix + ".grad." + name] = p.grad


def main():
    torch.manual_seed(20240611)
    store = {}

    # Embedding: repeated indices, so the weight's gradient adds rows up.
    emb = torch.nn.Embedding(10, 6)
    indices = torch.tensor([[2, 5, 2, 9, 0], [5, 5, 1, 3, 2]])
    out = emb(indices)
    store["embedding.indices"] = indices
    with_grads(out, "embedding", emb, {}, store)

    # The activations of one input each.
    x = torch.randn(3, 4, 5) * 2
    store["act.x"] = x
    layers = {"gelu": torch.nn.GELU(), "gelu_tanh": torch.nn.GELU(approximate="tanh"),
              "silu": torch.nn.SiLU(), "softmax": torch.nn.Softmax(dim=1),
              "log_softmax": torch.nn.LogSoftmax(dim=-1)}
    for name, layer in layers.items():
        leaf = x.clone().requires_grad_()
        out = layer(leaf)
        upstream = torch.randn(out.shape)
        (out * upstream).sum().backward()
        store[name + ".upstream"] = upstream
        store[name + ".out"] = out
        store[name + ".x_grad"] = leaf.grad

    n, length, d_model, nhead, ff = 2, 5, 8, 2, 16

    # Post-norm (torch's default) with relu and no mask.
    post = torch.nn.TransformerEncoderLayer(d_model, nhead, ff, dropout=0.0, batch_first=True)
    src = torch.randn(n, length, d_model).requires_grad_()
    with_grads(post(src), "post", post, {"src": src}, store)

    # Pre-norm with gelu, a causal mask and the last two keys of the second
    # sequence padded (torch: True hides; the file keeps 1 = takes part).
    pre = torch.nn.TransformerEncoderLayer(d_model, nhead, ff, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
    src = torch.randn(n, length, d_model).requires_grad_()
    causal = torch.nn.Transformer.generate_square_subsequent_mask(length)
    keep = torch.ones(n, length, dtype=torch.int64)
    keep[1, -2:] = 0
    out = pre(src, src_mask=causal, src_key_padding_mask=keep == 0)
    store["pre.keep"] = keep
    with_grads(out, "pre", pre, {"src": src}, store)

    # Two post-norm gelu layers (copies of one) and a final LayerNorm, under
    # a float causal mask.
    layer = torch.nn.TransformerEncoderLayer(d_model, nhead, ff, dropout=0.0, activation="gelu",
                                             batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(d_model),
                                          enable_nested_tensor=False)
    with torch.no_grad():  # the copies start equal: make them differ, as after training
        for p in encoder.layers[1].parameters():
            p.add_(torch.randn(p.shape) * 0.1)
        encoder.norm.weight.add_(torch.randn(d_model) * 0.1)
        encoder.norm.bias.add_(torch.randn(d_model) * 0.1)
    src = torch.randn(n, length, d_model).requires_grad_()
    store["encoder.mask"] = causal
    with_grads(encoder(src, mask=causal), "encoder", encoder, {"src": src}, store)

    # AdamW: a Linear trained on a mean squared error, its parameters after
    # each step, with chosen hyperparameters and with torch's defaults.
    for prefix, kwargs, steps in (("adamw", dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1), 5),
                                  ("adamw_default", {}, 3)):
        lin = torch.nn.Linear(4, 3)
        xs, ys = torch.randn(6, 4), torch.randn(6, 3)
        store[prefix + ".x"], store[prefix + ".y"] = xs, ys
        for name, p in lin.named_parameters():
            store[prefix + ".start." + name] = p.detach().clone()
        opt = torch.optim.AdamW(lin.parameters(), **kwargs)
        for step in range(1, steps + 1):
            opt.zero_grad()
            ((lin(xs) - ys) ** 2).mean().backward()
            opt.step()
            for name, p in lin.named_parameters():
                store["{}.step{}.{}".format(prefix, step, name)] = p.detach().clone()

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpp_transformer_fixture.safetensors")
    save(path, store, {"generator": "tests/data/make_cpp_transformer_fixture.py",
                       "torch": torch.__version__})
    print("wrote {} ({} tensors, {} bytes)".format(path, len(store), os.path.getsize(path)))


if __name__ == "__main__":
    main()
