"""onnx's backend test suite (of the pinned onnx release) against
backplane.onnx on $BP_ONNX_DEVICE: the node tests, and with
BP_ONNX_SUITES the suites of whole models that ship with the package
(real: the light models of onnx/backend/test/data/light; simple,
pytorch-converted, pytorch-operator). BP_ONNX_EXCLUDE is a regular
expression of tests to leave out (opencl:0 runs a subset: PoCL compiles
each kernel). conftest.py marks the expected failures of the device."""
import os
import pickle
import warnings

import onnx
import onnx.backend.test
import onnx.backend.test.runner as _runner

import backplane.onnx as bponnx

DEVICE = os.environ.get("BP_ONNX_DEVICE", "cpu:0")
_CLASSES = {"node": "OnnxBackendNodeModelTest", "real": "OnnxBackendRealModelTest",
            "simple": "OnnxBackendSimpleModelTest",
            "pytorch-converted": "OnnxBackendPyTorchConvertedModelTest",
            "pytorch-operator": "OnnxBackendPyTorchOperatorModelTest"}

_SUITES = os.environ.get("BP_ONNX_SUITES", "node").split(",")
_load = _runner.load_model_tests


def _load_cached(data_dir=None, kind=None):
    """onnx's test cases of a kind the run asks for, none of the others.
    onnx builds its node cases by running their Python generators (with its
    reference implementation: about a minute), so they are pickled once per
    onnx release in $ONNX_HOME, which every node-test process shares."""
    if kind not in _SUITES:
        return []
    if kind != "node" or not os.environ.get("ONNX_HOME"):
        return _load(kind=kind) if data_dir is None else _load(data_dir, kind)
    path = os.path.join(os.environ["ONNX_HOME"], "node-cases-{}.pickle".format(onnx.__version__))
    if os.path.exists(path):
        with open(path, "rb") as f:
            return pickle.load(f)
    cases = _load(kind="node")
    os.makedirs(os.environ["ONNX_HOME"], exist_ok=True)
    tmp = "{}.{}".format(path, os.getpid())
    with open(tmp, "wb") as f:
        pickle.dump(cases, f)
    os.replace(tmp, path)  # atomic: processes that race write the same cases
    return cases


_runner.load_model_tests = _load_cached
with warnings.catch_warnings():  # the case modules overflow casts on purpose
    warnings.simplefilter("ignore")
    _suite = onnx.backend.test.BackendTest(bponnx.backend_for(DEVICE), __name__)
_suite.include(r"_cpu$")  # onnx's "CPU" is DEVICE (backend_for); "CUDA" is not asked
if os.environ.get("BP_ONNX_EXCLUDE"):
    _suite.exclude(os.environ["BP_ONNX_EXCLUDE"])
for _name in _SUITES:
    globals()[_CLASSES[_name]] = _suite.test_cases[_CLASSES[_name]]
