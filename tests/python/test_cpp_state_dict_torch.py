"""Modules saved by the C++ frontend (Module::save of
bindings/cpp/backplane_nn.hpp) load into the same torch models through
safetensors.torch.load_file and load_state_dict(strict=True), and torch then
computes the C++ outputs (rtol 1e-5, atol 1e-6, float32). The C++ side is
tests/core/cpp_state_dict_writer.cpp, whose path ctest passes in
BACKPLANE_CPP_STATE_DICT_WRITER (tests/python/CMakeLists.txt)."""
import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")

WRITER = os.environ.get("BACKPLANE_CPP_STATE_DICT_WRITER")


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(),
                               torch.nn.Linear(6, 3))


def encoder():
    layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True)
    return torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(4), enable_nested_tensor=False)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    if not WRITER:
        pytest.skip("BACKPLANE_CPP_STATE_DICT_WRITER is not set: ctest sets it to the built "
                    "tests/core/cpp_state_dict_writer")
    out = tmp_path_factory.mktemp("cpp_state_dict")
    subprocess.run([WRITER, str(out)], check=True, timeout=300)
    return out


@pytest.mark.parametrize("name,make", [("mlp", mlp), ("encoder", encoder)])
def test_a_cpp_module_loads_into_torch_and_gives_its_output(written, name, make):
    state = safetensors_torch.load_file(str(written / (name + ".safetensors")))
    model = make()
    own = model.state_dict()
    assert sorted(state) == sorted(own)
    for key, t in own.items():
        assert (state[key].dtype, state[key].shape) == (t.dtype, t.shape), key
    model.load_state_dict(state, strict=True)
    model.eval()
    io = safetensors_torch.load_file(str(written / "io.safetensors"))
    with torch.no_grad():
        out = model(io[name + ".input"])
    torch.testing.assert_close(out, io[name + ".output"], rtol=1e-5, atol=1e-6)


def test_the_cpp_buffers_and_layers_are_what_they_were_in_cpp(written):
    mlp_state = safetensors_torch.load_file(str(written / "mlp.safetensors"))
    assert mlp_state["1.num_batches_tracked"].item() == 3
    assert not torch.equal(mlp_state["1.running_mean"], torch.zeros(6))
    # The two layers were trained apart, so loading one as the other would show.
    enc = safetensors_torch.load_file(str(written / "encoder.safetensors"))
    assert not torch.equal(enc["layers.0.linear1.weight"], enc["layers.1.linear1.weight"])
