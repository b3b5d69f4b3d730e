"""Runs pytest on the ONNX tests, or exits 77 (ctest: skipped) with the
reason when the onnx package is missing (scripts/install-deps.sh installs
the pinned one into the tests' virtual environment)."""
import sys

try:
    import onnx  # noqa: F401
except ImportError as e:
    print("skipped: the onnx package is not installed for {} ({}); scripts/install-deps.sh "
          "installs it".format(sys.executable, e))
    sys.exit(77)

import pytest  # noqa: E402

sys.exit(pytest.main(sys.argv[1:]))
