"""Models PyTorch exports (Debian's torch 1.13 and torchvision 0.14, random
weights, torch.onnx.export at opset 17) give PyTorch's outputs on cpu:0 and
opencl:0: within 1e-4 of the largest magnitude of PyTorch's output
(float32; random weights leave some logits near zero, where a relative
error per element says nothing).

$BP_ONNX_MODEL selects one model (ctest has a test per model). Exports
are cached in $BP_ONNX_MODEL_CACHE (the build folder), keyed by
the versions of torch and torchvision and the model's arguments, so a
rerun only runs them. A model whose operators this build's vocabulary
lacks (the window families of ABI 1.6 before they are merged) is skipped
with prepare()'s reason; any other refusal is a failure."""
import hashlib
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

import backplane as bp  # noqa: E402
import backplane.onnx as bponnx  # noqa: E402

CACHE = os.environ.get("BP_ONNX_MODEL_CACHE") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), ".model-cache")
TOLERANCE = 1e-4


def _encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                             dropout=0.0)
    return torch.nn.TransformerEncoder(layer, num_layers=2), torch.randn(5, 2, 32)


MODELS = {
    "resnet18": lambda: (torchvision.models.resnet18(weights=None), torch.randn(2, 3, 64, 64)),
    "mobilenet_v2": lambda: (torchvision.models.mobilenet_v2(weights=None),
                             torch.randn(2, 3, 64, 64)),
    "squeezenet1_1": lambda: (torchvision.models.squeezenet1_1(weights=None),
                              torch.randn(2, 3, 64, 64)),
    "transformer_encoder": _encoder,
}


def _exported(name):
    """(path of the .onnx file, input, PyTorch's output), made once."""
    key = hashlib.sha1("{} {} {} opset17 seed0".format(
        name, torch.__version__, torchvision.__version__).encode()).hexdigest()[:12]
    path = os.path.join(CACHE, "{}-{}.onnx".format(name, key))
    data = path[:-5] + ".npz"
    if not (os.path.exists(path) and os.path.exists(data)):
        os.makedirs(CACHE, exist_ok=True)
        torch.manual_seed(0)
        net, x = MODELS[name]()
        net.eval()
        with torch.no_grad():
            y = net(x)
            tmp = path + ".tmp"
            torch.onnx.export(net, (x,), tmp, opset_version=17, input_names=["x"],
                              output_names=["y"])
        np.savez(data, x=x.numpy(), y=y.numpy())
        os.replace(tmp, path)
    arrays = np.load(data)
    return path, arrays["x"], arrays["y"]


def _prepare_or_skip(path, device):
    try:
        return bponnx.prepare(path, device=device)
    except bponnx.UnsupportedModelError as e:
        lacking = sorted({line.split("has no ", 1)[1].split(" operator")[0] for line in e.nodes
                          if "this build of Backplane has no " in line})
        if lacking and all("this build of Backplane has no " in line
                                            for line in e.nodes):
            pytest.skip("this build's vocabulary lacks {} (ABI 1.6 operators not merged yet): "
                        "{} node(s) refused".format(", ".join(lacking), len(e.nodes)))
        raise


@pytest.mark.parametrize("device", ["cpu:0", "opencl:0"])
@pytest.mark.parametrize("name", [os.environ["BP_ONNX_MODEL"]] if os.environ.get("BP_ONNX_MODEL")
                         else sorted(MODELS))
def test_matches_pytorch(name, device):
    if device not in [d.name for d in bp.devices()]:
        pytest.skip(device + " is not present")
    path, x, expected = _exported(name)
    model = _prepare_or_skip(path, device)
    (y,) = model.run([x])
    assert y.device == device
    got = y.numpy()
    assert got.shape == expected.shape
    scale = float(np.max(np.abs(expected)))
    worst = float(np.max(np.abs(got.astype(np.float64) - expected)))
    assert worst <= TOLERANCE * scale, "{} on {}: largest difference {:.3g}, {:.3g} of the " \
        "largest magnitude {:.3g}".format(name, device, worst, worst / scale, scale)
    # Every node ran on the device asked: no copies, nothing on a fallback.
    assert "copies between devices on every run: none" in model.report()
