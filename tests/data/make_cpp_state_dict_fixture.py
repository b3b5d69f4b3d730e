#!/usr/bin/env python3
"""Writes cpp_state_dict_fixture.safetensors beside this script: two torch
models' state_dicts, an input and torch's output for each, which
tests/core/test_cpp_state_dict.cpp loads into the same models built with
bindings/cpp/backplane_nn.hpp (Module::load_state_dict) and runs.

  mlp:     Sequential(Linear(4, 6), BatchNorm1d(6), ReLU(), Linear(6, 3)),
           three training batches seen (running statistics moved,
           num_batches_tracked 3), then evaluated.
  encoder: TransformerEncoder(TransformerEncoderLayer(d_model 4, nhead 2,
           dim_feedforward 8, dropout 0, batch_first), 2 layers, a final
           LayerNorm(4)), evaluated.

Every parameter is redrawn at random, so the two encoder layers differ
(torch starts them as copies) and the norms are not ones and zeros: a key
loaded into the wrong tensor changes the output. Under "<model>.state.<key>"
the state_dict, under "<model>.input" and "<model>.output" the data, and
in the metadata "<model>.keys" the state_dict's keys in torch's order,
comma-separated (the file itself orders names bytewise).

Run with the machine's torch (1.13 here) and the safetensors package:
  PYTHONPATH=/opt/backplane/test-packages /usr/bin/python3 make_cpp_state_dict_fixture.py
"""
import os
import sys

sys.path.append(os.environ.get("BACKPLANE_TEST_PACKAGES", "/opt/backplane/test-packages"))

import safetensors.torch  # noqa: E402
import torch  # noqa: E402


def mlp():
    net = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(),
                              torch.nn.Linear(6, 3))
    for _ in range(3):
        net(torch.randn(5, 4) * 2 + 1)
    return net


def encoder():
    layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True)
    return torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(4), enable_nested_tensor=False)


def main():
    torch.manual_seed(20261202)
    tensors, metadata = {}, {}
    for name, model, shape in [("mlp", mlp(), (5, 4)), ("encoder", encoder(), (2, 3, 4))]:
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.randn(p.shape) * 0.5)
        model.eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            out = model(x)
        state = model.state_dict()
        metadata[name + ".keys"] = ",".join(state)
        for key, t in state.items():
            tensors[name + ".state." + key] = t.clone()
        tensors[name + ".input"] = x
        tensors[name + ".output"] = out
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpp_state_dict_fixture.safetensors")
    safetensors.torch.save_file(tensors, path, metadata)


if __name__ == "__main__":
    main()
