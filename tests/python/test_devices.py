"""Devices: the chapter's cpu/gpu/num_gpus/try_gpu/try_all_gpus, Device
objects, name parsing, and the default-device scope."""
import pickle
import threading

import pytest

import backplane as bp
from conftest import PRESENT, require


def test_cpu_is_cpu0():
    c = bp.cpu()
    assert isinstance(c, bp.Device)
    assert c.name == "cpu:0" and str(c) == "cpu:0" and repr(c) == "cpu:0"
    assert c.type == "cpu" and c.index == 0 and c.kind == "cpu"
    assert c is bp.cpu()


def test_devices_lists_cpu_and_reference():
    names = [d.name for d in bp.devices()]
    assert "cpu:0" in names and "reference:0" in names
    assert len(set(names)) == len(names)


def test_device_parsing_and_identity():
    assert bp.device("cpu") is bp.cpu()
    assert bp.device("cpu:0") == bp.cpu()
    assert bp.Device("cpu:0") is bp.cpu()
    assert bp.device(bp.cpu()) is bp.cpu()
    ref = bp.device("reference:0")
    assert ref.name == "reference:0" and ref.backend == "reference"
    assert ref != bp.cpu()
    assert bp.device("reference") is ref


def test_device_hash_and_sets():
    ref = bp.device("reference:0")
    s = {bp.cpu(), bp.device("cpu"), ref, bp.device("reference")}
    assert len(s) == 2
    d = {bp.cpu(): "host"}
    assert d[bp.device("cpu:0")] == "host"


def test_device_prints_in_containers():
    assert repr((bp.cpu(), bp.device("reference:0"))) == "(cpu:0, reference:0)"
    assert "{}".format(bp.cpu()) == "cpu:0"


def test_device_pickles_by_name():
    assert pickle.loads(pickle.dumps(bp.cpu())) is bp.cpu()


def test_device_info():
    info = bp.cpu().info()
    assert info["name"] == "cpu:0"
    assert info["backend"]
    props = bp.cpu().properties()
    assert isinstance(props, list) and props, "cpu:0 reports its model and cores"
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in props)


def test_unknown_device_lists_the_devices():
    with pytest.raises(bp.UnknownDeviceError) as e:
        bp.device("cuda:10")
    assert "cuda:10" in str(e.value)
    assert "cpu:0" in str(e.value) and "reference:0" in str(e.value)
    assert isinstance(e.value, ValueError)
    assert e.value.status == "BP_ERR_UNKNOWN_DEVICE"


def test_device_rejects_other_types():
    with pytest.raises(TypeError):
        bp.device(0)


def test_num_gpus_matches_try_all_gpus():
    gpus = bp.try_all_gpus()
    assert isinstance(gpus, list)
    assert bp.num_gpus() == len(gpus)
    assert all(g.is_accelerator for g in gpus)
    assert gpus == [bp.gpu(i) for i in range(bp.num_gpus())]


def test_try_gpu_falls_back_to_cpu():
    assert bp.try_gpu(10) is bp.cpu()
    if bp.num_gpus() == 0:
        assert bp.try_gpu() is bp.cpu()
        assert bp.try_all_gpus() == []
    else:
        assert bp.try_gpu() is bp.gpu(0)


def test_gpu_out_of_range_raises():
    with pytest.raises(bp.UnknownDeviceError) as e:
        bp.gpu(bp.num_gpus())
    assert "accelerator" in str(e.value)


def test_pocl_devices_count_as_gpus_in_the_test_config():
    cl0, cl1 = require("opencl:0"), require("opencl:1")
    if not cl0.is_accelerator:
        pytest.skip("the configuration does not count PoCL's CPU-kind devices as accelerators "
                    "(tests/backplane-test.toml does: set BACKPLANE_CONFIG)")
    assert cl0.kind == "cpu"  # PoCL: CPU-kind, widened by accelerator_kinds
    gpus = bp.try_all_gpus()
    assert cl0 in gpus and cl1 in gpus and bp.num_gpus() == len(gpus)
    if not any(d.type == "cuda" for d in gpus):  # cuda comes first in the fallback order
        assert bp.gpu(0) is cl0 and bp.gpu(1) is cl1
        assert bp.try_gpu(1) is cl1
    assert bp.device("gpu:1") is bp.gpu(1)


def test_default_device_scope(dev):
    outer = bp.current_device()
    with bp.default_device(dev) as d:
        assert d is dev
        assert bp.current_device() is dev
        for t in (bp.ones(2), bp.zeros(2), bp.empty(2), bp.full(2, 3.0), bp.arange(3),
                  bp.tensor([1, 2]), bp.random.uniform(size=2), bp.random.normal(size=2)):
            assert t.device is dev
    assert bp.current_device() is outer


def test_default_device_scopes_nest_and_accept_names():
    ref = bp.device("reference:0")
    with bp.default_device("reference:0"):
        with bp.default_device(bp.cpu()):
            assert bp.ones(1).device is bp.cpu()
        assert bp.ones(1).device is ref
        assert bp.ones(1, device="cpu").device is bp.cpu()  # an explicit device wins


def test_device_object_is_a_scope():
    ref = bp.device("reference:0")
    with ref:
        assert bp.ones(1).device is ref
    assert bp.current_device() is not ref or bp.current_device() == ref


def test_default_device_scope_is_thread_local():
    ref = bp.device("reference:0")
    seen = {}
    entered = threading.Event()
    done = threading.Event()

    def other():
        entered.wait()
        seen["other"] = bp.ones(1).device
        done.set()

    th = threading.Thread(target=other)
    th.start()
    with bp.default_device(ref):
        entered.set()
        done.wait(10)
        assert bp.ones(1).device is ref
    th.join()
    assert seen["other"] is bp.current_device()
    assert seen["other"] is not ref or bp.current_device() is ref


def test_scope_does_not_move_existing_tensors():
    x = bp.ones(2, device="cpu")
    with bp.default_device("reference:0"):
        y = x + 1
    assert y.device is bp.cpu()


def test_synchronize(dev):
    x = bp.ones(1000, device=dev) * 2
    bp.synchronize(dev)
    bp.synchronize(dev.name)
    dev.synchronize()
    bp.synchronize()
    assert x.wait() is x
    assert float(x.sum()) == 2000


def test_present_devices_are_listed():
    for name, d in PRESENT.items():
        assert bp.device(name) is d
