"""What a PyTorch or NumPy user expects of the Python spellings: devices
compared with names, .to(dtype), the PyTorch method names, in-place methods,
bool reductions, NumPy ufuncs, the chapter's random spellings, error classes
that are also the matching builtins, and messages in Python spelling."""
import numpy as np
import pytest

import backplane as bp
from conftest import require, run_python


def test_device_compares_equal_to_its_name(dev):
    x = bp.ones(2, device=dev)
    assert x.device == dev.name and not (x.device != dev.name)
    assert x.device != "no-such:0"
    assert {dev.name: 1}[x.device] == 1 and {x.device: 1}[dev.name] == 1


def test_device_properties_are_read_whatever_their_number(dev):
    props = dev.properties()
    assert props, "every in-tree backend reports at least its model"
    assert len({k for k, _ in props}) == len(props)


@pytest.mark.parametrize("spelling", [bp.float64, "float64", np.float64, float])
def test_to_takes_a_dtype_positionally(dev, spelling):
    x = bp.tensor([1, 2, 3], device=dev)
    y = x.to(spelling)
    assert y.dtype == bp.float64 and y.device is dev
    assert y.tolist() == [1.0, 2.0, 3.0]
    assert x.to(dev) is x and x.to(bp.int64) is x


def test_to_takes_device_and_dtype_together(dev_pair):
    a, b = dev_pair
    x = bp.tensor([1, 2], device=a)
    y = x.to(b.name, "float32")
    assert y.device is b and y.dtype == bp.float32
    z = bp.zeros(1, dtype=bp.float64, device=a)
    assert x.to(z).dtype == bp.float64 and x.to(z).device is a
    with pytest.raises(TypeError, match="dtype given twice"):
        x.to(bp.float32, dtype=bp.float64)


def test_pytorch_conversion_methods(dev):
    x = bp.tensor([1.5, -2.5], device=dev)
    assert x.double().dtype == bp.float64 and x.float() is x
    assert x.int().dtype == bp.int32 and x.long().tolist() == [1, -2]
    assert x.bool().dtype == bp.bool and x.bool().tolist() == [True, True]
    assert x.cpu().device == "cpu:0"


def test_gpu_and_cuda_methods():
    x = bp.ones(2, device="cpu")
    if bp.num_gpus():
        assert x.gpu().device is bp.gpu(0)
    else:
        with pytest.raises(bp.UnknownDeviceError):
            x.gpu()
    if "cuda:0" not in {d.name for d in bp.devices()}:
        with pytest.raises(bp.UnknownDeviceError, match="cuda:0"):
            x.cuda()
    else:
        assert x.cuda().device == "cuda:0"


def test_size_is_numpys_number_and_pytorchs_shape(dev):
    x = bp.zeros((2, 3), device=dev)
    assert x.size == 6 and x.size + 1 == 7
    assert x.size() == (2, 3) and x.size(1) == 3 and x.size(-2) == 2
    assert x.numel() == 6 and x.dim() == 2
    assert x.stride() == (3, 1) and x.stride(0) == 3 and x.T.stride() == (1, 3)
    with pytest.raises(IndexError, match="out of range"):
        x.size(2)


def test_clone_copies_and_detach_shares(dev):
    x = bp.tensor([1.0, 2.0], device=dev)
    c, d = x.clone(), x.detach()
    assert c is not x and d is not x
    c.fill_(7)
    assert x.tolist() == [1.0, 2.0]
    d.fill_(5)
    assert x.tolist() == [5.0, 5.0]


def test_in_place_methods_write_into_the_tensor(dev):
    x = bp.tensor([1.0, 2.0, 3.0], device=dev)
    assert x.add_(1) is x and x.tolist() == [2.0, 3.0, 4.0]
    x.mul_(bp.tensor([2.0, 0.5, 1.0], device=dev)).sub_(1).div_(2)
    assert x.tolist() == [1.5, 0.25, 1.5]
    assert x.zero_() is x and x.tolist() == [0.0, 0.0, 0.0]
    x.copy_([4, 5, 6])
    assert x.tolist() == [4.0, 5.0, 6.0]
    x.copy_(bp.tensor([9.0, 8.0, 7.0], device="cpu"))
    assert x.tolist() == [9.0, 8.0, 7.0] and x.device is dev
    i = bp.tensor([1, 2], device=dev)
    with pytest.raises(bp.DtypeError):
        i.div_(2)  # float64 does not fit an int64 tensor
    assert i.tolist() == [1, 2]


def test_all_and_any_are_bool(dev):
    a = bp.tensor([[1, 0], [2, 3]], device=dev)
    for r in (a.all(), a.any(), (a > 0).all(), a.all(axis=0), a.any(axis=1, keepdims=True)):
        assert r.dtype == bp.bool
    assert a.all().item() is False and a.any().item() is True
    assert a.all(axis=1).tolist() == [False, True]


def test_numpy_ufuncs_run_on_the_device(dev):
    x = bp.tensor([1.0, 4.0], device=dev)
    for r, expected in ((np.sqrt(x), [1.0, 2.0]), (np.add(x, 1), [2.0, 5.0]),
                        (np.multiply(2, x), [2.0, 8.0]), (np.float64(2) * x, [2.0, 8.0]),
                        (np.maximum(x, 2.0), [2.0, 4.0])):
        assert isinstance(r, bp.Tensor) and r.device is dev
        assert r.tolist() == expected
    assert np.allclose(np.exp(x).numpy(), np.exp([1.0, 4.0]), rtol=1e-6)
    out = bp.zeros(2, device=dev)
    assert np.negative(x, out=out) is out and out.tolist() == [-1.0, -4.0]
    with pytest.raises(TypeError, match="np.arctan is not supported"):
        np.arctan(x)
    with pytest.raises(TypeError, match=r"np.add.reduce is not supported"):
        np.add.reduce(x)


def test_numpy_asarray_without_a_copy_is_refused():
    x = bp.ones(2, device="cpu")
    with pytest.raises(ValueError, match="copy"):
        x.__array__(copy=False)  # what NumPy 2's np.asarray(x, copy=False) calls
    assert np.asarray(x).tolist() == [1.0, 1.0]


def test_random_takes_the_chapters_spellings(dev):
    shape = (200, 50)
    u = bp.random.uniform(size=shape, device=dev)
    assert u.shape == shape and u.device is dev
    u = bp.random.uniform(-2, -1, shape, device=dev, seed=3).numpy()
    assert u.min() >= -2 and u.max() < -1
    assert bp.random.uniform(shape, device=dev, seed=3).shape == shape  # shape first
    n = bp.random.normal(3, 0.5, size=shape, device=dev, seed=4).numpy()
    assert abs(n.mean() - 3) < 0.05 and abs(n.std() - 0.5) < 0.05
    assert bp.random.normal(2, 3, device=dev).shape == ()  # mean 2, std 3, like torch.normal
    m = bp.random.normal(mean=-1, std=2, size=shape, device=dev, seed=5).numpy()
    assert abs(m.mean() + 1) < 0.1 and abs(m.std() - 2) < 0.1
    same = bp.random.normal(shape, -1, 2, device=dev, seed=5).numpy()
    assert np.array_equal(m, same)
    with pytest.raises(TypeError, match="both loc= and mean="):
        bp.random.normal(loc=1, mean=1)


def test_randint_and_the_global_seed(dev):
    bp.manual_seed(11)
    a = bp.random.randint(3, 9, size=(1000,), device=dev)
    bp.manual_seed(11)
    b = bp.random.randint(3, 9, size=(1000,), device=dev)
    assert a.dtype == bp.int64 and np.array_equal(a.numpy(), b.numpy())
    values = set(a.numpy().tolist())
    assert values == set(range(3, 9))
    same = bp.random.randint(3, 9, size=(1000,), device="cpu", seed=2).numpy()
    assert np.array_equal(bp.random.randint(3, 9, size=(1000,), device=dev, seed=2).numpy(), same)
    with pytest.raises(ValueError, match="below high"):
        bp.random.randint(5, 5)


def test_error_classes_are_the_matching_builtins():
    assert issubclass(bp.DeviceMismatchError, RuntimeError)
    assert issubclass(bp.BackendError, RuntimeError)
    assert issubclass(bp.ShapeError, ValueError)
    assert issubclass(bp.DtypeError, TypeError)
    assert issubclass(bp.UnknownDeviceError, ValueError)


def test_messages_use_python_spellings():
    ref = require("reference:0")
    x = bp.ones(2, device="cpu")
    with pytest.raises(RuntimeError) as e:
        x + bp.ones(2, device=ref)
    assert "`.to(device)`" in str(e.value) and "bp_to" not in str(e.value)
    with pytest.raises(TypeError) as e:
        bp.where(x, x, x)
    assert "`c != 0`" in str(e.value) and "BP_OP_NE" not in str(e.value)
    with pytest.raises(bp.StateError) as e:
        bp.init()
    assert "bp.init" in str(e.value) and "bp_init" not in str(e.value)


def test_set_default_device_and_scopes(dev):
    try:
        bp.set_default_device(dev.name)
        assert bp.ones(1).device is dev and bp.current_device() is dev
        with bp.default_device("cpu"):
            assert bp.ones(1).device == "cpu:0"
        assert bp.tensor([1]).device is dev
    finally:
        bp.set_default_device(None)
    assert bp.current_device() is bp.device("default")


def test_the_shipped_default_device_is_cpu_and_auto_is_a_choice():
    # PoCL's devices count as accelerators here, so "auto" would pick one.
    env = {"BACKPLANE_CONFIG": None, "BACKPLANE_ACCELERATOR_KINDS": "gpu,accelerator,opencl:cpu",
           "BACKPLANE_DEFAULT_DEVICE": None}
    code = ("import backplane as bp; print(bp.tensor([1, 2, 3]).device, bp.num_gpus(), "
            "bp.device('auto') == bp.try_gpu())")
    r = run_python(code, env=env)
    assert r.returncode == 0, r.stderr
    device, gpus, auto_is_try_gpu = r.stdout.split()
    if int(gpus) == 0:
        pytest.skip("no accelerator here: 'auto' and 'cpu' pick the same device")
    assert device == "cpu:0" and auto_is_try_gpu == "True"
    env["BACKPLANE_DEFAULT_DEVICE"] = "auto"
    r = run_python("import backplane as bp; print(bp.tensor([1]).device)", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() != ["cpu:0"]


def test_floor_division_and_remainder_are_pythons(dev):
    a = np.array([7, -7, 7, -7, 6, 0, -6], dtype=np.int64)
    b = np.array([2, 2, -2, -2, 3, 5, 4], dtype=np.int64)
    x, y = bp.tensor(a, device=dev), bp.tensor(b, device=dev)
    assert (x // y).tolist() == (a // b).tolist() and (x % y).tolist() == (a % b).tolist()
    assert bp.floor_divide(x, 3).tolist() == (a // 3).tolist()
    assert (-7 % x[:4]).tolist() == (-7 % a[:4]).tolist()
    assert (x // 0).tolist() == [0] * 7 and (x % 0).tolist() == [0] * 7  # NumPy gives 0 too
    f = np.array([-7.5, 7.5, 4.0, 1.0], dtype=np.float32)
    g = np.array([2.0, -2.0, -2.0, 0.0], dtype=np.float32)
    fx, gx = bp.tensor(f, device=dev), bp.tensor(g, device=dev)
    rem = (fx % gx).numpy()
    assert rem[:3].tolist() == [0.5, -0.5, 0.0] and np.signbit(rem[2]) and np.isnan(rem[3])
    assert (fx // gx).numpy()[:3].tolist() == [-4.0, -4.0, -2.0]
    assert np.remainder(fx, 2).device is dev and bp.mod is bp.remainder


def test_square_sin_cos_prod_argmin(dev):
    a = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=np.float32)
    x = bp.tensor(a, device=dev)
    assert x.square().tolist() == (a * a).tolist() and np.square(x).device is dev
    assert np.allclose(bp.sin(x).numpy(), np.sin(a), rtol=1e-6, atol=1e-6)
    assert np.allclose(x.cos().numpy(), np.cos(a), rtol=1e-6, atol=1e-6)
    assert x.prod().item() == pytest.approx(float(np.prod(a)))
    assert np.allclose(x.prod(axis=0).numpy(), a.prod(axis=0))
    assert x.argmin().item() == int(np.argmin(a)) and x.argmin(axis=1).tolist() == a.argmin(axis=1).tolist()
    i = bp.tensor([[3, 65536], [2, 65536]], dtype=bp.int32, device=dev)
    assert i.prod().dtype == bp.int64 and i.prod().item() == 3 * 2 * 65536 * 65536
    assert bp.prod(i, axis=(0, 1)).item() == i.prod().item()
    with pytest.raises(TypeError, match="argmin: axis must be an int or None"):
        x.argmin(axis=(0, 1))
