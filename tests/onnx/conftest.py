"""The ONNX tests' device and expected failures.

BP_ONNX_DEVICE names the device the backend suite runs on (default cpu:0).
expected-failures/<device>.txt (<device>-models.txt for the suites of whole
models, BP_ONNX_SUITES) lists the tests of onnx's suite that do not
pass there, one per line: `<test> unsupported` (prepare() must refuse the
model with UnsupportedModelError) or `<test> fails <why>` (it runs and
gives a wrong answer or raises). Each becomes a strict xfail: a listed test
that passes fails the run, so the list stays true and can only shrink as
operators are added. update_expected_failures.py rewrites a list from a run.
"""
import os
import sys

import pytest

DEVICE = os.environ.get("BP_ONNX_DEVICE", "cpu:0")
HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.environ.get("BP_ONNX_SUITES", "node")


def list_path(device=DEVICE, suites=SUITES):
    """expected-failures/<device>.txt for the node tests, <device>-models.txt
    for the suites of whole models."""
    tag = "" if suites == "node" else "-models"
    return os.path.join(HERE, "expected-failures", device.replace(":", "-") + tag + ".txt")


LIST = list_path()
RECORD = os.environ.get("BP_ONNX_RECORD")  # update_expected_failures.py: record, mark nothing


def read_expected(path=LIST):
    """{test name: ("unsupported" | "fails", why)} of a list file."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, kind, *why = line.split(None, 2)
                out[name] = (kind, why[0] if why else "")
    return out


def case_name(item):
    """onnx's test name without the device suffix BackendTest appends."""
    name = item.name
    return name[:-len("_cpu")] if name.endswith("_cpu") else name


def pytest_collection_modifyitems(config, items):
    if not any(item.fspath.basename == "test_backend.py" for item in items):
        return
    # onnx's "CUDA" copy of each test is never asked (BackendTest's "CPU" is
    # the device): deselected rather than reported as skipped.
    cuda = [item for item in items if item.name.endswith("_cuda")]
    if cuda:
        config.hook.pytest_deselected(items=cuda)
        items[:] = [item for item in items if not item.name.endswith("_cuda")]
    if RECORD:
        return
    from backplane.onnx import UnsupportedModelError
    expected = read_expected()
    seen = set()
    for item in items:
        entry = expected.get(case_name(item))
        if entry is None:
            continue
        seen.add(case_name(item))
        kind, why = entry
        if kind == "unsupported":
            item.add_marker(pytest.mark.xfail(strict=True, raises=UnsupportedModelError,
                                              reason="unsupported on " + DEVICE))
        else:
            item.add_marker(pytest.mark.xfail(strict=True, reason=why or "fails on " + DEVICE))


_outcomes = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if RECORD and report.when == "call" and not report.skipped:
        from backplane.onnx import UnsupportedModelError
        if report.passed:
            _outcomes[case_name(item)] = None
        elif call.excinfo is not None and call.excinfo.errisinstance(UnsupportedModelError):
            _outcomes[case_name(item)] = ("unsupported", "")
        else:
            why = str(call.excinfo.value).strip().splitlines()[0][:160] if call.excinfo else ""
            _outcomes[case_name(item)] = ("fails", "{}: {}".format(
                call.excinfo.typename if call.excinfo else "failed", why))


def pytest_sessionfinish(session):
    if RECORD:
        import json
        with open(RECORD, "w") as f:
            json.dump(_outcomes, f)


sys.path.insert(0, HERE)
