"""Typed exceptions built from the C API's structured error, one per status."""
import os

import pytest

import backplane as bp
from conftest import run_python


def _test_plugin_dir():
    d = os.environ.get("BACKPLANE_TEST_PLUGIN_DIR")
    if not d:
        lib = os.environ.get("BACKPLANE_LIB") or bp.library_path()
        d = os.path.join(os.path.dirname(lib), "..", "tests", "test-plugins")
    d = os.path.normpath(d)
    if not os.path.exists(os.path.join(d, "libbackplane-fake.so")):
        pytest.skip("the test plugins (tests/test-plugins, libbackplane-fake.so) are not built "
                    "in {}".format(d))
    return d


def test_hierarchy():
    for cls, builtin in [(bp.ShapeError, ValueError), (bp.DtypeError, TypeError),
                         (bp.UnknownDeviceError, ValueError), (bp.OutOfMemoryError, MemoryError),
                         (bp.UnsupportedError, NotImplementedError),
                         (bp.InvalidHandleError, ValueError),
                         (bp.InvalidArgumentError, ValueError)]:
        assert issubclass(cls, bp.BackplaneError) and issubclass(cls, builtin)
    for cls in (bp.DeviceMismatchError, bp.ConfigError, bp.PluginError, bp.BackendError,
                bp.StateError, bp.InternalError):
        assert issubclass(cls, bp.BackplaneError)
    assert bp.DeviceMismatchError.__module__ == "backplane"


def test_shape_error_fields():
    with pytest.raises(bp.ShapeError) as e:
        bp.ones((2, 3), device="cpu") + bp.ones(4, device="cpu")
    err = e.value
    assert err.status == "BP_ERR_SHAPE" and err.code == 6
    assert err.op == "add" and err.input == 1 and err.devices == ()
    assert "cannot broadcast" in str(err)


def test_dtype_error():
    x = bp.ones(3, device="cpu")
    with pytest.raises(bp.DtypeError) as e:
        bp.where(x, x, x)
    assert e.value.op == "where" and "bool" in str(e.value)
    with pytest.raises(bp.DtypeError):
        bp.random.uniform(size=2, dtype="int32", device="cpu")


def test_out_of_memory():
    with pytest.raises(bp.OutOfMemoryError) as e:
        bp.empty(1 << 42, device="cpu")
    assert "out of memory" in str(e.value)


def test_invalid_handle_for_a_bad_device_id():
    from backplane import _C
    with pytest.raises(bp.InvalidHandleError) as e:
        _C.device_info(99999)
    assert "99999" in str(e.value)


def test_state_error_when_already_running():
    bp.ones(1, device="cpu")
    with pytest.raises(bp.StateError):
        bp.init(text="[devices]\ndefault = 'cpu'\n")


def test_invalid_argument():
    with pytest.raises(bp.InvalidArgumentError):
        bp.arange(0, 10, 0, device="cpu")


def test_unknown_device():
    with pytest.raises(bp.UnknownDeviceError) as e:
        bp.ones(2, device="nosuch:3")
    assert "nosuch:3" in str(e.value) and "cpu:0" in str(e.value)


def test_errors_keep_working_after_many_failures():
    x = bp.ones(2, device="cpu")
    for _ in range(1000):
        with pytest.raises(bp.ShapeError):
            x.reshape(3)
    assert (x + 1).sum().item() == 4


def _first_call_raises(cfg, text, error):
    """What a process started with the configuration file cfg holding text
    prints when its first call raises bp.<error>: the name, status and message."""
    cfg.write_text(text)
    r = run_python(
        "import backplane as bp\n"
        "try:\n    bp.ones(1)\n"
        "except bp.{0} as e:\n    print('{0}', e.status, e)\n".format(error),
        env={"BACKPLANE_CONFIG": str(cfg)})
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_config_error_with_position(tmp_path):
    out = _first_call_raises(tmp_path / "bad.toml", "[devices]\ndefault = 3\n", "ConfigError")
    assert "ConfigError BP_ERR_CONFIG" in out and "bad.toml:2:" in out


def test_config_error_from_init_text():
    r = run_python(
        "import backplane as bp\n"
        "try:\n    bp.init(text='[devices\\n', source_name='inline.toml')\n"
        "except bp.ConfigError as e:\n    print('CONFIG', e)\n",
        env={"BACKPLANE_CONFIG": None})
    assert r.returncode == 0, r.stderr
    assert "CONFIG" in r.stdout and "inline.toml" in r.stdout


def test_plugin_error_for_a_required_plugin(tmp_path):
    out = _first_call_raises(tmp_path / "req.toml", '[plugins]\nrequired = ["nosuch"]\n', "PluginError")
    assert "PluginError" in out and "nosuch" in out


def test_unsupported_on_a_backend_that_lacks_the_op():
    d = _test_plugin_dir()
    r = run_python(
        "import backplane as bp\n"
        "x = bp.ones(2, device='fake:0')\n"
        "try:\n    x + x\n"
        "except bp.UnsupportedError as e:\n"
        "    print('UNSUPPORTED', e.op, e.status, isinstance(e, NotImplementedError))\n"
        "    print(e)\n"
        "print([p['name'] for p in bp.plugins() if not p['loaded']])\n",
        env={"BACKPLANE_PLUGIN_PATH": d})
    assert r.returncode == 0, r.stderr
    assert "UNSUPPORTED add BP_ERR_UNSUPPORTED True" in r.stdout
    assert "fake" in r.stdout and "wrong-abi" in r.stdout  # broken plugins are reported


def test_plugin_reports():
    reports = bp.plugins(count_devices=True)
    names = {r["name"] for r in reports if r["loaded"]}
    assert {"cpu-openblas", "reference"} <= names
    assert all(set(r) == {"loaded", "path", "name", "version", "reason", "device_count"}
               for r in reports)


def test_config_entries():
    entries = bp.config()
    keys = {k for k, _, _ in entries}
    assert "devices.default" in keys and "devices.fallback" in keys


def test_trace_and_counters():
    bp.trace(True)
    bp.trace_clear()
    x = bp.ones(3, device="cpu")
    (x + x).wait()
    lines = bp.trace_lines()
    bp.trace(False)
    assert any("add" in line for line in lines), lines
    c = bp.backend_counters("cpu-openblas")
    assert c["ops"] > 0 and c["staged_copies"] >= 0
    with pytest.raises(bp.BackplaneError):
        bp.backend_counters("nosuch")
