"""Lazy fusion from Python: bp.set_fusion / bp.fusion_enabled, the same
arrays with fusion on and off, intermediates dropped by reference counting
never allocated, and DLPack export of a result still pending."""
import numpy as np
import pytest

import backplane as bp
from conftest import require, run_python

FUSING = ["cpu:0", "reference:0", "opencl:0"]


@pytest.fixture(params=FUSING)
def fdev(request):
    return require(request.param)


@pytest.fixture(autouse=True)
def fusion_on_afterwards():
    yield
    bp.set_fusion(True)
    bp.trace(False)


def groups():
    return [line for line in bp.trace_lines() if line.startswith("fused group ")]


def chapter_code(dev):
    """The seed chapter's kind of code (its timing cell, copies between
    devices, random data, an elementwise tail after a matmul), its results
    as NumPy arrays."""
    with bp.default_device(dev):
        x = bp.arange(1, 200_001, dtype="float32")
        y = x ** 0.5 - abs(x).log()
        X = bp.ones((64, 128))
        Y = bp.random.uniform((64, 128), seed=0)
        Z = X.copyto(bp.cpu()).copyto(dev)
        S = (X + Y * 2 - Z / 3).tanh()
        A = bp.random.uniform((100, 100), seed=2)
        B = (A @ A).sigmoid() * 0.5 + (A @ A).exp() ** 0.25
        cmp = bp.where(Y > 0.5, Y, -Y).astype("float64") + x[:8192].reshape(64, 128)
        ints = (bp.arange(8192, dtype="int32").reshape(64, 128) % 7) * 3 - Y.astype("int32")
        return [t.numpy() for t in (y, S, B, cmp, ints, Y > 0.25)]


def test_fusion_switch():
    bp.set_fusion(False)
    assert bp.fusion_enabled() is False
    bp.trace(True)
    bp.trace_clear()
    x = bp.ones((64, 128), device="cpu:0")
    y = x * 2
    assert not any("deferred" in line for line in bp.trace_lines())
    bp.set_fusion(True)
    assert bp.fusion_enabled() is True
    z = x * 2
    assert any("deferred as operator 1" in line for line in bp.trace_lines())
    np.testing.assert_array_equal(z.numpy(), y.numpy())


def test_chapter_code_gives_the_same_arrays_with_and_without_fusion(fdev):
    bp.set_fusion(False)
    eager = chapter_code(fdev)
    bp.set_fusion(True)
    bp.trace(True)
    bp.trace_clear()
    fused = chapter_code(fdev)
    assert any("as one program (execute_fused)" in g for g in groups()), bp.trace_lines()
    for i, (a, b) in enumerate(zip(eager, fused)):
        assert a.dtype == b.dtype and a.shape == b.shape, i
        assert a.tobytes() == b.tobytes(), "result {} differs on {}".format(i, fdev)


def test_intermediates_dropped_by_refcount_are_never_materialised(fdev):
    x = bp.arange(8192, dtype="float32", device=fdev).reshape(64, 128)
    bp.set_fusion(False)
    expected = ((x * 2 - 1).exp() + x).numpy()
    bp.set_fusion(True)
    backend = fdev.backend
    bp.trace(True)
    bp.trace_clear()
    before = bp.backend_counters(backend)["allocations"]
    y = (x * 2 - 1).exp() + x
    assert bp.backend_counters(backend)["allocations"] == before
    assert groups() == []
    np.testing.assert_array_equal(y.numpy(), expected)
    assert bp.backend_counters(backend)["allocations"] == before + 1
    assert groups() == [
        "fused group float32 [64, 128] on {}: mul, sub, exp, add; 1 input(s), 1 of 4 result(s) written, "
        "3 never materialised, ran on backend {} as one program (execute_fused)".format(fdev, backend)]


@pytest.mark.parametrize("name", ["cpu:0", "reference:0"])
def test_dlpack_export_of_a_pending_result(name):
    dev = require(name)
    x = bp.arange(8192, dtype="float32", device=dev).reshape(64, 128)
    bp.trace(True)
    bp.trace_clear()
    y = x * 2 + 1
    assert groups() == []
    a = np.from_dlpack(y)
    assert len(groups()) == 1
    np.testing.assert_array_equal(a, np.arange(8192, dtype=np.float32).reshape(64, 128) * 2 + 1)


def test_backplane_fusion_0_starts_with_fusion_off():
    r = run_python(
        "import backplane as bp\n"
        "bp.devices()\n"
        "print(bp.fusion_enabled())\n"
        "bp.trace(True)\n"
        "y = bp.ones((64, 128), device='cpu:0') * 2\n"
        "print(any('deferred' in l for l in bp.trace_lines()))\n",
        env={"BACKPLANE_FUSION": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]
