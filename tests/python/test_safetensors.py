"""bp.save / bp.load and backplane.safetensors: every dtype round trips on
every device; files written here are read by the PyPI `safetensors`
package (numpy and torch flavours) and theirs here; a model saved on one
device gives the same logits loaded on another and in PyTorch; malformed
files and bad arguments raise typed errors. The C API's hostile-file cases
are in tests/core/test_safetensors.cpp."""
import io
import os

import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.safetensors import load, load_file, safe_open, save, save_file

from conftest import PRESENT

NUMPY_DTYPES = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "int64": np.int64,
                "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


def values_of(name, n=12, seed=0):
    """n values of dtype `name` (bfloat16: float32 values it holds exactly)."""
    rng = np.random.default_rng(seed + len(name))
    if name == "bool":
        return rng.random(n) < 0.5
    if name == "bfloat16":
        return (rng.standard_normal(n).astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    dtype = NUMPY_DTYPES[name]
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return (rng.standard_normal(n) * 100).astype(dtype)


def every_dtype(device):
    """One tensor of every dtype on device, and its values as float64 or bool."""
    tensors, expected = {}, {}
    for name in ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
                 "bool"]:
        v = values_of(name).reshape(3, 4)
        tensors[name] = bp.tensor(v, dtype=getattr(bp, name), device=device)
        expected[name] = v
    return tensors, expected


def host(t):
    """t's values on the host (bfloat16 widened exactly to float32)."""
    return (t.float() if t.dtype == bp.bfloat16 else t).numpy()


@pytest.fixture
def safetensors():
    return pytest.importorskip(
        "safetensors", reason="the PyPI safetensors package (tests/python/requirements.txt, installed by "
                              "scripts/install-deps.sh) is the format's own reader and writer")


def test_every_dtype_round_trips_from_and_onto_every_device(dev, tmp_path):
    tensors, expected = every_dtype(dev)
    tensors["scalar"] = bp.tensor(2.5, device=dev)
    tensors["empty"] = bp.zeros((0, 3), dtype=bp.int32, device=dev)
    tensors["strided"] = bp.arange(12, dtype=bp.float32, device=dev).reshape(3, 4).T
    path = tmp_path / "all.safetensors"
    bp.save(tensors, path)
    for onto in {dev, bp.device("cpu:0")}:
        loaded = bp.load(path, map_location=onto)
        assert list(loaded) == sorted(tensors)
        for name, t in tensors.items():
            back = loaded[name]
            assert back.device == onto and back.dtype == t.dtype and back.shape == t.shape, name
            np.testing.assert_array_equal(host(back), host(t), err_msg=name)
    for name, v in expected.items():
        np.testing.assert_array_equal(host(tensors[name]), v.astype(host(tensors[name]).dtype))


def test_bp_load_defaults_to_the_current_device(tmp_path):
    bp.save({"w": bp.ones(2, device="cpu")}, tmp_path / "w.safetensors")
    with bp.default_device("reference:0"):
        assert bp.load(tmp_path / "w.safetensors")["w"].device == "reference:0"
    assert load_file(tmp_path / "w.safetensors")["w"].device == "cpu:0"  # safetensors' default


def test_nested_dicts_are_flattened_with_dots_as_state_dict_names_them(tmp_path):
    w, b = bp.ones((2, 2)), bp.zeros(2)
    bp.save({"encoder": {"layer": {"weight": w}, "bias": b}, "state": {0: {"exp_avg": b}}}, tmp_path / "n.st")
    assert sorted(bp.load(tmp_path / "n.st")) == ["encoder.bias", "encoder.layer.weight", "state.0.exp_avg"]
    with pytest.raises(ValueError, match="'a.b' once nested names are joined"):
        bp.save({"a.b": w, "a": {"b": w}}, tmp_path / "x.st")
    with pytest.raises(TypeError, match="'epoch': int is no backplane Tensor"):
        bp.save({"w": w, "epoch": 3}, tmp_path / "x.st")
    with pytest.raises(TypeError, match="the keys are names"):
        bp.save({(1, 2): w}, tmp_path / "x.st")
    with pytest.raises(TypeError, match="saves a dict of tensors"):
        bp.save([w], tmp_path / "x.st")
    assert not os.path.exists(tmp_path / "x.st")


def test_file_objects_and_bytes(dev):
    tensors, _ = every_dtype(dev)
    buffer = io.BytesIO()
    bp.save(tensors, buffer, metadata={"format": "pt"})
    assert buffer.getvalue() == save(tensors, metadata={"format": "pt"})
    buffer.seek(0)
    loaded = bp.load(buffer, map_location=dev)
    for name, t in tensors.items():
        np.testing.assert_array_equal(host(loaded[name]), host(t))
    assert load(buffer.getvalue(), device=dev)["int8"].device == dev

    class Full(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        bp.save(tensors, Full())


def test_safe_open_lists_loads_by_name_and_closes(tmp_path):
    w = bp.arange(6, dtype=bp.float32).reshape(2, 3)
    save_file({"w": w, "a": bp.ones(1)}, tmp_path / "m.safetensors", metadata={"k": "v"})
    with safe_open(tmp_path / "m.safetensors", framework="bp", device="reference:0") as f:
        assert f.keys() == ["a", "w"]
        assert f.metadata() == {"k": "v"}
        t = f.get_tensor("w")
        assert t.device == "reference:0" and t.tolist() == w.tolist()
        with pytest.raises(bp.InvalidArgumentError, match="holds no tensor 'x'"):
            f.get_tensor("x")
    with pytest.raises(bp.InvalidHandleError, match="no open safetensors file"):
        f.get_tensor("w")
    with safe_open(tmp_path / "m.safetensors") as f:
        assert f.metadata() == {"k": "v"}
    save_file({"w": w}, tmp_path / "plain.safetensors")
    with safe_open(tmp_path / "plain.safetensors") as f:
        assert f.metadata() is None
    with pytest.raises(ValueError, match="framework 'pt'"):
        safe_open(tmp_path / "m.safetensors", framework="pt")


def test_bad_files_and_arguments_raise_typed_errors(tmp_path):
    with pytest.raises(FileNotFoundError) as missing:
        bp.load(tmp_path / "missing.safetensors")
    assert isinstance(missing.value, bp.IoError) and missing.value.filename.endswith("missing.safetensors")
    (tmp_path / "short.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
    with pytest.raises(bp.FormatError, match=r"short.safetensors: the header length at offset 0 is 16 bytes, "
                                             r"but only 2 bytes follow it") as short:
        bp.load(tmp_path / "short.safetensors")
    assert isinstance(short.value, ValueError)
    with pytest.raises(bp.FormatError, match="at offset 14 .* not valid JSON"):
        load(b"\x08\x00\x00\x00\x00\x00\x00\x00{\"a\": x}")
    with pytest.raises(bp.IoError, match="not a regular file"):
        bp.load(tmp_path)
    with pytest.raises(TypeError, match="map_location is a device"):
        bp.load(tmp_path / "short.safetensors", map_location={"cuda:0": "cpu"})
    with pytest.raises(TypeError, match="a path or a file object"):
        bp.load(3)
    with pytest.raises(ValueError, match="holds a NUL character"):
        save_file({"a\0b": bp.ones(1)}, tmp_path / "nul.safetensors")
    with pytest.raises(bp.InvalidArgumentError, match="'__metadata__'"):
        save_file({"__metadata__": bp.ones(1)}, tmp_path / "meta.safetensors")
    with pytest.raises(TypeError, match="metadata must map str to str"):
        save_file({"a": bp.ones(1)}, tmp_path / "m.safetensors", metadata={"step": 3})


def test_files_written_here_are_read_by_the_safetensors_package(dev, tmp_path, safetensors):
    import safetensors.numpy
    tensors, expected = every_dtype(dev)
    path = tmp_path / "bp.safetensors"
    bp.save(tensors, path, metadata={"written_by": "backplane"})
    with safetensors.safe_open(str(path), framework="np") as f:
        assert f.metadata() == {"written_by": "backplane"}
        assert sorted(f.keys()) == sorted(tensors)
    # NumPy has no bfloat16: its flavour reads the others.
    del tensors["bfloat16"]
    numpy_path = tmp_path / "np.safetensors"
    bp.save(tensors, numpy_path)
    arrays = safetensors.numpy.load_file(str(numpy_path))
    for name, t in tensors.items():
        assert arrays[name].dtype == NUMPY_DTYPES[name]
        np.testing.assert_array_equal(arrays[name], expected[name], err_msg=name)


def test_files_written_here_are_read_by_pytorch_through_safetensors(dev, tmp_path, safetensors):
    torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) reads the file")
    import safetensors.torch
    tensors, expected = every_dtype(dev)
    bp.save(tensors, tmp_path / "bp.safetensors")
    loaded = safetensors.torch.load_file(str(tmp_path / "bp.safetensors"))
    for name, t in tensors.items():
        got = loaded[name]
        assert str(got.dtype) == "torch." + name
        np.testing.assert_array_equal(got.float().numpy() if name == "bfloat16" else got.numpy(),
                                      expected[name], err_msg=name)


def test_files_the_safetensors_package_writes_load_here(dev, tmp_path, safetensors):
    torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) writes the bfloat16 file")
    import safetensors.numpy
    import safetensors.torch
    arrays = {name: values_of(name).reshape(4, 3) for name in NUMPY_DTYPES}
    arrays["scalar"] = np.array(1.5, dtype=np.float32)
    safetensors.numpy.save_file(arrays, str(tmp_path / "np.safetensors"), metadata={"flavour": "np"})
    with safe_open(tmp_path / "np.safetensors", device=dev) as f:
        assert f.metadata() == {"flavour": "np"}
        for name, a in arrays.items():
            t = f.get_tensor(name)
            assert t.device == dev and t.shape == a.shape
            np.testing.assert_array_equal(t.numpy(), a, err_msg=name)
    bf16 = torch.tensor(values_of("bfloat16"), dtype=torch.bfloat16).reshape(2, 6)
    safetensors.torch.save_file({"bf16": bf16, "f32": torch.ones(2, 2)}, str(tmp_path / "pt.safetensors"))
    loaded = bp.load(tmp_path / "pt.safetensors", map_location=dev)
    assert loaded["bf16"].dtype == bp.bfloat16 and loaded["bf16"].shape == (2, 6)
    np.testing.assert_array_equal(loaded["bf16"].float().numpy(), bf16.float().numpy())
    np.testing.assert_array_equal(loaded["f32"].numpy(), np.ones((2, 2), np.float32))
    # Its bytes form: safetensors.torch.save -> bp.safetensors.load.
    np.testing.assert_array_equal(load(safetensors.torch.save({"x": torch.arange(5)}))["x"].numpy(), np.arange(5))


def small_model(device):
    bp.manual_seed(7)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)


def test_a_model_saved_on_one_device_gives_the_same_logits_on_another_and_in_pytorch(tmp_path, safetensors):
    source = "opencl:0" if "opencl:0" in PRESENT else "reference:0"
    net = small_model(source)
    x = bp.random.uniform(-1, 1, (5, 8), device=source)
    logits = net(x).numpy()
    path = tmp_path / "model.safetensors"
    bp.save(net.state_dict(), path)
    other = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to("cpu:0")
    other.load_state_dict(bp.load(path, map_location="cpu:0"))
    np.testing.assert_allclose(other(x.to("cpu:0")).numpy(), logits, rtol=1e-5, atol=1e-6)
    torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) loads the model")
    import safetensors.torch
    reference = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    reference.load_state_dict(safetensors.torch.load_file(str(path)))
    with torch.no_grad():
        np.testing.assert_allclose(reference(torch.from_numpy(x.numpy())).numpy(), logits, rtol=1e-5, atol=1e-6)
