"""Fixtures for the backplane Python tests.

The runtime is process-global: its configuration comes from BACKPLANE_CONFIG
(tests/backplane-test.toml under ctest, where PoCL's two CPU-kind OpenCL
devices count as accelerators, so gpu(0)/gpu(1) are opencl:0/opencl:1 and the
default device is opencl:0 when the OpenCL plugin is present). Tests that need
another configuration run in a subprocess (run_python below).

Every device test runs on cpu:0, reference:0 and, when present, opencl:0,
opencl:1 and cuda:0; absent devices are skipped with the reason the loader
gave (pytest -rs prints it).
"""
import os
import subprocess
import sys

import pytest

# The PyPI packages of requirements.txt, where scripts/install-deps.sh puts
# them (Debian's Python refuses pip installs into its own site-packages).
_TEST_PACKAGES = os.environ.get("BACKPLANE_TEST_PACKAGES", "/opt/backplane/test-packages")
if os.path.isdir(_TEST_PACKAGES) and _TEST_PACKAGES not in sys.path:
    sys.path.append(_TEST_PACKAGES)

import backplane as bp  # noqa: E402

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEVICE_NAMES = ["cpu:0", "reference:0", "opencl:0", "opencl:1", "cuda:0"]


def _present():
    return {d.name: d for d in bp.devices()}


PRESENT = _present()


def absent_reason(name):
    """Why a device is missing, from the plugin reports."""
    backend = name.partition(":")[0]
    for r in bp.plugins(count_devices=True):
        if r["name"] == backend or os.path.basename(r["path"]) == "libbackplane-{}.so".format(backend):
            if not r["loaded"]:
                return "{} not present: plugin {} rejected: {}".format(name, r["path"], r["reason"])
            return "{} not present: backend {} has {} device(s){}".format(
                name, backend, r["device_count"], ": " + r["reason"] if r["reason"] else "")
    return "{} not present: no libbackplane-{}.so plugin was found (not built?)".format(name, backend)


def require(name):
    """The Device named, or skip the test with the reason it is missing."""
    d = PRESENT.get(name)
    if d is None:
        pytest.skip(absent_reason(name))
    return d


@pytest.fixture(params=DEVICE_NAMES)
def dev(request):
    """Each device in turn (skipped with its reason when absent)."""
    return require(request.param)


@pytest.fixture(params=[("cpu:0", "reference:0"), ("opencl:0", "opencl:1"), ("cpu:0", "opencl:1")],
                ids=lambda p: "{}+{}".format(*p))
def dev_pair(request):
    """Two different devices (skipped when either is absent)."""
    return require(request.param[0]), require(request.param[1])


def run_python(code=None, script=None, env=None, timeout=120, args=()):
    """Runs python code (or a script, with its command-line args) in a fresh
    interpreter with this process's environment plus env; returns
    CompletedProcess (text)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env = {k: v for k, v in full_env.items() if v is not None}
    argv = [sys.executable] + ([script, *args] if script else ["-c", code])
    return subprocess.run(argv, env=full_env, capture_output=True, text=True, timeout=timeout)
