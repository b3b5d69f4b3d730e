"""onnx's backend test suite (of the pinned onnx release) against
backplane.onnx on $BP_ONNX_DEVICE: the node tests, and with
BP_ONNX_SUITES the suites of whole models that ship with the package
(real: the light models of onnx/backend/test/data/light; simple,
pytorch-converted, pytorch-operator). BP_ONNX_EXCLUDE is a regular
expression of tests to leave out (opencl:0 runs a subset: PoCL compiles
each kernel). conftest.py marks the expected failures of the device."""
import os
import warnings

import onnx.backend.test

import backplane.onnx as bponnx

DEVICE = os.environ.get("BP_ONNX_DEVICE", "cpu:0")
_CLASSES = {"node": "OnnxBackendNodeModelTest", "real": "OnnxBackendRealModelTest",
            "simple": "OnnxBackendSimpleModelTest",
            "pytorch-converted": "OnnxBackendPyTorchConvertedModelTest",
            "pytorch-operator": "OnnxBackendPyTorchOperatorModelTest"}

with warnings.catch_warnings():  # the case modules overflow casts on purpose
    warnings.simplefilter("ignore")
    _suite = onnx.backend.test.BackendTest(bponnx.backend_for(DEVICE), __name__)
_suite.include(r"_cpu$")  # onnx's "CPU" is DEVICE (backend_for); "CUDA" is not asked
if os.environ.get("BP_ONNX_EXCLUDE"):
    _suite.exclude(os.environ["BP_ONNX_EXCLUDE"])
for _name in os.environ.get("BP_ONNX_SUITES", "node").split(","):
    globals()[_CLASSES[_name]] = _suite.test_cases[_CLASSES[_name]]
