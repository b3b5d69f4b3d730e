"""backplane.onnx's own promises: refusal at prepare naming every node,
the fallback device and the copies it costs, run() on NumPy arrays and on
tensors, initialisers put on the device once, constants folded,
intermediates dropped after their last reader (so elementwise runs fuse
and are never written), opsets, and the command."""
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import backplane as bp
import backplane.onnx as bponnx
from backplane.onnx import _dtypes

F32 = TensorProto.FLOAT


def model(nodes, inputs, outputs, initializers=(), opset=17, domains=()):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(initializers))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    return helper.make_model(graph, opset_imports=imports)


def vi(name, shape, elem=F32):
    return helper.make_tensor_value_info(name, elem, shape)


def elementwise_chain():
    """y = exp(x * 2 - 1) + x on [64, 128] (the fusion chapter's chain)."""
    two = numpy_helper.from_array(np.array(2, np.float32), "two")
    one = numpy_helper.from_array(np.array(1, np.float32), "one")
    nodes = [helper.make_node("Mul", ["x", "two"], ["a"], name="mul"),
             helper.make_node("Sub", ["a", "one"], ["b"], name="sub"),
             helper.make_node("Exp", ["b"], ["c"], name="exp"),
             helper.make_node("Add", ["c", "x"], ["y"], name="add")]
    return model(nodes, [vi("x", [64, 128])], [vi("y", [64, 128])], [two, one])


def test_refusal_names_every_node_it_cannot_run():
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    branch = helper.make_graph([helper.make_node("Identity", ["x"], ["z"])], "b", [],
                               [vi("z", [3])])
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="fine"),
        helper.make_node("Frobnicate", ["r"], ["f"], name="custom", domain="com.example"),
        helper.make_node("If", ["c"], ["i"], name="branch", then_branch=branch,
                         else_branch=branch),
        helper.make_node("Abs", ["s"], ["t"], name="unsigned"),
        helper.make_node("Add", ["f", "i"], ["y"], name="also_fine"),
    ]
    m = model(nodes, [vi("x", [3]), cond, vi("s", [2], TensorProto.UINT32)],
              [vi("y", [3]), vi("t", [2], TensorProto.UINT32)], domains=["com.example"])
    m.graph.value_info.append(vi("f", [3]))  # what the custom operator would make
    with pytest.raises(bponnx.UnsupportedModelError) as info:
        bponnx.prepare(m, device="cpu:0")
    e = info.value
    assert len(e.nodes) == 3, str(e)
    text = str(e)
    assert "3 node(s) of the model cannot run on cpu:0" in text
    assert "node 'custom' (com.example.Frobnicate, opset 1; float32 -> float32)" in text
    assert "node 'branch' (If, opset 17; bool -> float32)" in text
    assert "no converter for If" in text
    assert "node 'unsigned' (Abs, opset 17; uint32 -> uint32)" in text
    assert "'s' is uint32, which Backplane has no dtype for" in text
    assert "'fine'" not in text and "also_fine" not in text
    assert isinstance(e, bp.UnsupportedError)


def test_refusal_says_which_device_would_run_it(plugin_device):
    erf = model([helper.make_node("Erf", ["x"], ["y"], name="erf")], [vi("x", [4])],
                [vi("y", [4])])
    with pytest.raises(bponnx.UnsupportedModelError) as info:
        bponnx.prepare(erf, device=plugin_device)
    text = str(info.value)
    assert "node 'erf' (Erf, opset 17; float32 -> float32)" in text
    assert "does not implement erf float32" in text
    assert "runs on cpu:0" in text and "fallback=" in text


def test_fallback_runs_there_and_lists_every_copy(plugin_device):
    nodes = [helper.make_node("Add", ["x", "x"], ["a"], name="twice"),
             helper.make_node("Erf", ["a"], ["b"], name="erf"),
             helper.make_node("Mul", ["b", "x"], ["y"], name="scale")]
    m = model(nodes, [vi("x", [5])], [vi("y", [5])])
    rep = bponnx.prepare(m, device=plugin_device, fallback="cpu:0")
    rows = {r["name"]: r["device"] for r in rep.nodes}
    assert rows == {"twice": plugin_device, "erf": "cpu:0", "scale": plugin_device}
    report = rep.report()
    assert "copies on every run (2):" in report, report
    assert "'a' {} -> cpu:0 (input 0 of node 'erf'".format(plugin_device) in report
    assert "'b' cpu:0 -> {} (input 0 of node 'scale'".format(plugin_device) in report
    x = np.array([-1.0, -0.25, 0.0, 0.5, 2.0], np.float32)
    (y,) = rep.run([x])
    assert y.device == plugin_device
    from math import erf
    np.testing.assert_allclose(y.numpy(), [erf(2 * v) * v for v in x], rtol=1e-6, atol=1e-7)


def test_run_takes_arrays_or_tensors_on_the_device_and_returns_tensors_there():
    rep = bponnx.prepare(elementwise_chain(), device="reference:0")
    x = np.linspace(-1, 1, 64 * 128, dtype=np.float32).reshape(64, 128)
    expected = np.exp(x * 2 - 1) + x
    for given in (x, {"x": x}, bp.tensor(x, device="reference:0")):
        (y,) = rep.run(given if isinstance(given, dict) else [given])
        assert y.device == "reference:0" and y.dtype == "float32"
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6, atol=1e-6)
    with pytest.raises(bp.DeviceMismatchError, match="is on cpu:0, the model was prepared for "
                       "reference:0"):
        rep.run([bp.tensor(x, device="cpu:0")])
    with pytest.raises(ValueError, match="takes 1 input"):
        rep.run([x, x])
    with pytest.raises(ValueError, match="missing input"):
        rep.run({"z": x})


def test_initialisers_go_to_the_device_once(monkeypatch):
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [vi("x", [2, 3])],
              [vi("y", [2, 4])], [numpy_helper.from_array(w, "w")])
    rep = bponnx.prepare(m, device="cpu:0")
    resident = rep._resident["w", "cpu:0"]
    uploads = []
    real = _dtypes.to_device
    monkeypatch.setattr(_dtypes, "to_device", lambda v, d: uploads.append(v.shape) or real(v, d))
    x = np.ones((2, 3), np.float32)
    for _ in range(2):
        (y,) = rep.run([x])
        np.testing.assert_array_equal(y.numpy(), x @ w)
    assert uploads == [(2, 3), (2, 3)]  # the input on each run; the weight never again
    assert rep._resident["w", "cpu:0"] is resident


def test_shape_arithmetic_is_folded_at_prepare_time():
    shape = numpy_helper.from_array(np.array([0], np.int64), "zero")
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "zero"], ["rows"], name="rows"),
             helper.make_node("Concat", ["rows", "minus1"], ["target"], axis=0, name="concat"),
             helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")]
    minus1 = numpy_helper.from_array(np.array([-1], np.int64), "minus1")
    m = model(nodes, [vi("x", [2, 3, 4])], [vi("y", None)], [shape, minus1])
    rep = bponnx.prepare(m, device="cpu:0")
    where = {r["name"]: r["where"] for r in rep.nodes}
    assert where == {"shape": "folded", "rows": "folded", "concat": "folded", "reshape": "device"}
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (y,) = rep.run([x])
    assert tuple(y.shape) == (2, 12)
    np.testing.assert_array_equal(y.numpy(), x.reshape(2, 12))


def test_intermediates_are_dropped_after_their_last_reader_so_the_chain_fuses():
    dev = bp.device("cpu:0")
    rep = bponnx.prepare(elementwise_chain(), device=dev)
    assert sorted(n for names in rep.plan.release.values() for n in names) == ["a", "b", "c", "x"]
    x = bp.tensor(np.linspace(-1, 1, 64 * 128, dtype=np.float32).reshape(64, 128), device=dev)
    bp.set_fusion(True)
    bp.trace(True)
    try:
        bp.trace_clear()
        (y,) = rep.run([x])
        y.numpy()
        groups = [line for line in bp.trace_lines() if line.startswith("fused group ")]
    finally:
        bp.trace(False)
    # Three inputs: x and the two constants (tensors put on the device once).
    assert groups == [
        "fused group float32 [64, 128] on cpu:0: mul, sub, exp, add; 3 input(s), 1 of 4 result(s) "
        "written, 3 never materialised, ran on backend cpu-openblas as one program "
        "(execute_fused)"], groups


def clip_model(elem, constant_bounds):
    """y = Clip(x, 0, 6) on [64, 128] (large enough to fuse): ReLU6, its bounds
    initialisers or inputs."""
    np_type = _dtypes.numpy_dtype(_dtypes.type_name(elem))
    bounds = [numpy_helper.from_array(np.array(v).astype(np_type), name)
              for name, v in (("lo", 0), ("hi", 6))]
    inputs = [vi("x", [64, 128], elem)] + ([] if constant_bounds else [vi("lo", [], elem), vi("hi", [], elem)])
    return model([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], inputs, [vi("y", [64, 128], elem)],
                 bounds if constant_bounds else ())


@pytest.mark.parametrize("elem", [F32, TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.INT8])
def test_clip_constant_bounds_are_scalar_operands(elem):
    np_type = _dtypes.numpy_dtype(_dtypes.type_name(elem))
    x = np.resize(np.array([-3, 1, 3, 7, 100]), (64, 128)).astype(np_type)
    want = np.clip(x.astype(np.float64), 0, 6)
    for constant in (True, False):
        rep = bponnx.prepare(clip_model(elem, constant), device="cpu:0")
        args = [x] if constant else [x, np.array(0).astype(np_type), np.array(6).astype(np_type)]
        bp.set_fusion(True)
        bp.trace(True)
        try:
            bp.trace_clear()
            (y,) = rep.run(args)
            got = _dtypes.to_host(y).astype(np.float64)
            groups = [line for line in bp.trace_lines() if line.startswith("fused group ")]
        finally:
            bp.trace(False)
        np.testing.assert_array_equal(got, want)
        # Constant bounds are applied as scalars: x is the program's only
        # input; bounds given at run time are tensors read through it.
        assert len(groups) == 1 and ("; 1 input(s)" if constant else "; 3 input(s)") in groups[0], groups


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_a_float32_model_converted_to_a_half_dtype(dtype):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"]),
             helper.make_node("Add", ["xw", "b"], ["z"]),
             helper.make_node("Cast", ["z"], ["y"], to=TensorProto.FLOAT)]
    m = model(nodes, [vi("x", [4, 16])], [vi("y", [4, 8])],
              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    half = bponnx.convert_float_model(m, dtype)
    assert m.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT  # a copy
    x = rng.standard_normal((4, 16)).astype(np.float32)
    hx = x.astype(_dtypes.numpy_dtype(dtype))
    (y,) = bponnx.prepare(half, device="cpu:0").run([hx])
    assert y.dtype == dtype
    # The same rounded operands in float64, rounded once more.
    hw, hb = (a.astype(_dtypes.numpy_dtype(dtype)).astype(np.float64) for a in (w, b))
    expected = hx.astype(np.float64) @ hw + hb
    got = _dtypes.to_host(y).astype(np.float64)
    eps = 2.0 ** -8 if dtype == "bfloat16" else 2.0 ** -11
    assert np.max(np.abs(got - expected)) <= 2 * eps * np.max(np.abs(expected))


def test_opsets():
    relu = [helper.make_node("Relu", ["x"], ["y"])]
    old = model(relu, [vi("x", [3])], [vi("y", [3])], opset=11)
    (y,) = bponnx.prepare(old, device="cpu:0").run([np.array([-1, 0, 2], np.float32)])
    np.testing.assert_array_equal(y.numpy(), [0, 0, 2])
    newest = onnx.defs.onnx_opset_version()
    with pytest.raises(ValueError, match="opset {}".format(newest + 1)):
        bponnx.prepare(model(relu, [vi("x", [3])], [vi("y", [3])], opset=newest + 1))


def test_command_prints_shapes_report_and_latency(tmp_path):
    path = tmp_path / "chain.onnx"
    onnx.save(elementwise_chain(), str(path))
    np.save(tmp_path / "x.npy", np.ones((64, 128), np.float32))
    r = subprocess.run([sys.executable, "-m", "backplane.onnx", str(path), "--device",
                        "reference:0", "--input", str(tmp_path / "x.npy"), "--bench", "--runs",
                        "2", "--warmup", "1", "--onnxruntime", "--threads", "1"],
                       capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "output y: [64, 128] float32" in out
    assert "exp" in out and "reference:0: exp float32" in out
    assert "copies between devices on every run: none" in out
    assert "latency on reference:0: median" in out and "1 thread(s)" in out
    assert "latency of onnxruntime CPU EP: median" in out
    assert "largest difference of the outputs" in out


@pytest.fixture
def plugin_device():
    """A device of the compatibility suite's ABI 1.0 plugin (the reference's
    kernels, only 1.0's operators: no erf), which CMake puts on
    BACKPLANE_PLUGIN_PATH for this test."""
    name = os.environ.get("BP_ONNX_PLUGIN_DEVICE")
    if not name or name not in [d.name for d in bp.devices()]:
        pytest.skip("the ABI 1.0 test plugin is not loaded (BACKPLANE_PLUGIN_PATH)")
    return name
