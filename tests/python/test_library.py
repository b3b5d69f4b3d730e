"""Finding libbackplane.so and the package's import-time behaviour."""
import os

import backplane as bp
from conftest import run_python


def test_library_path_is_reported():
    path = bp.library_path()
    assert os.path.isfile(path) and "libbackplane" in os.path.basename(path)
    assert bp.api_version()[0] == 1


def test_bad_backplane_lib_says_what_it_tried(tmp_path):
    missing = str(tmp_path / "nowhere" / "libbackplane.so")
    r = run_python("import backplane", env={"BACKPLANE_LIB": missing})
    assert r.returncode != 0
    assert "ImportError" in r.stderr
    assert "BACKPLANE_LIB: {} (no such file)".format(missing) in r.stderr
    assert "Set BACKPLANE_LIB" in r.stderr


def test_backplane_lib_may_name_a_directory():
    lib_dir = os.path.dirname(bp.library_path())
    r = run_python("import backplane as bp; print(bp.library_path())",
                   env={"BACKPLANE_LIB": lib_dir})
    assert r.returncode == 0, r.stderr
    assert os.path.dirname(r.stdout.strip()) == lib_dir


def test_not_a_library(tmp_path):
    fake = tmp_path / "libbackplane.so"
    fake.write_text("not a library")
    r = run_python("import backplane", env={"BACKPLANE_LIB": str(fake)})
    assert r.returncode != 0 and str(fake) in r.stderr


def test_import_is_lazy():
    # numpy is imported only when data crosses to the host; the runtime
    # (plugins, devices) starts on first use.
    r = run_python("import sys, backplane as bp\n"
                   "print('numpy' in sys.modules, 'ctypes' in sys.modules)\n"
                   "x = bp.ones(2, device='cpu')\n"
                   "print('numpy' in sys.modules)\n"
                   "x.numpy()\n"
                   "print('numpy' in sys.modules)\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False", "False", "True"]
