"""Rewrites expected-failures/<device>.txt from a run of the backend suite:

    BACKPLANE_LIB=... PYTHONPATH=<build>/python \\
        python tests/onnx/update_expected_failures.py cpu:0 [suites]

(BP_ONNX_EXCLUDE as the ctest test of the device sets it: opencl:0's.)
Review the diff: the list may only shrink (a test leaves it when its
operator is added or fixed); an entry added is a regression unless the
suite itself grew (a newer onnx release)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu:0"
    suites = sys.argv[2] if len(sys.argv) > 2 else "node"
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        record = tmp.name
    env = dict(os.environ, BP_ONNX_DEVICE=device, BP_ONNX_SUITES=suites, BP_ONNX_RECORD=record)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "--tb=native", "-p", "no:cacheprovider",
                    "-W", "ignore", os.path.join(HERE, "test_backend.py")], env=env, check=False)
    with open(record) as f:
        outcomes = json.load(f)
    os.unlink(record)
    failing = {k: v for k, v in outcomes.items() if v is not None}
    sys.path.insert(0, HERE)
    from conftest import list_path
    path = list_path(device, suites)
    with open(path, "w") as f:
        f.write("# onnx backend tests that do not pass on {} (suites: {}); see conftest.py.\n"
                "# {} of {} tests. This list may only shrink.\n".format(
                    device, suites, len(failing), len(outcomes)))
        for name in sorted(failing):
            kind, why = failing[name]
            f.write("{} {}{}\n".format(name, kind, " " + why if why else ""))
    print("{}: {} of {} tests listed".format(path, len(failing), len(outcomes)))


if __name__ == "__main__":
    main()
