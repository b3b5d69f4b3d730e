"""Runs pytest on the ONNX tests, or exits 77 (ctest: skipped) with the
reason when the onnx package is missing (scripts/install-deps.sh installs
the pinned one into the tests' virtual environment), or when every test it
selected was skipped (their reasons are printed with -rs)."""
import sys

try:
    import onnx  # noqa: F401
except ImportError as e:
    print("skipped: the onnx package is not installed for {} ({}); scripts/install-deps.sh "
          "installs it".format(sys.executable, e))
    sys.exit(77)

import pytest  # noqa: E402


class _Outcomes:
    def __init__(self):
        self.ran = 0
        self.skipped = 0

    def pytest_runtest_logreport(self, report):
        if report.skipped:
            self.skipped += 1
        elif report.when == "call":
            self.ran += 1


outcomes = _Outcomes()
status = pytest.main(sys.argv[1:], plugins=[outcomes])
sys.exit(77 if status == 0 and outcomes.skipped and not outcomes.ran else status)
