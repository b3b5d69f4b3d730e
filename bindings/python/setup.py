"""Builds the extension module backplane._C (C, against abi/include only).

    pip install ./bindings/python                   # from the repository root
    pip install --no-build-isolation ./bindings/python   # offline, system setuptools

Environment:
  BACKPLANE_INCLUDE     directory holding backplane/backplane.h
                        (default: ../../abi/include next to this file)
  BACKPLANE_BUNDLE_LIB  a build's lib directory (e.g. build/lib): copy
                        libbackplane.so and its plugins into the package, for a
                        self-contained install that needs no BACKPLANE_LIB.
Without bundling, the installed package looks for the library as described in
backplane/_library.py, including the repository build tree recorded here.
"""
import glob
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
INCLUDE = os.environ.get("BACKPLANE_INCLUDE") or os.path.join(REPO, "abi", "include")
if not os.path.isfile(os.path.join(INCLUDE, "backplane", "backplane.h")):
    raise SystemExit("backplane: backplane/backplane.h not found in {} (set BACKPLANE_INCLUDE "
                     "to the repository's abi/include)".format(INCLUDE))


class BuildPy(build_py):
    """Also writes backplane/_build_info.py and, with BACKPLANE_BUNDLE_LIB,
    copies the library and its plugins into the package."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "backplane")
        with open(os.path.join(pkg, "_build_info.py"), "w") as f:
            f.write("# written by setup.py\nREPOSITORY_BUILD_LIB = {!r}\n".format(
                os.path.join(REPO, "build", "lib")))
        bundle = os.environ.get("BACKPLANE_BUNDLE_LIB")
        if bundle:
            lib = os.path.join(bundle, "libbackplane.so")
            if not os.path.exists(lib):
                raise SystemExit("BACKPLANE_BUNDLE_LIB: {} not found".format(lib))
            shutil.copyfile(os.path.realpath(lib), os.path.join(pkg, "libbackplane.so"))
            plugins = os.path.join(pkg, "backplane", "plugins")
            os.makedirs(plugins, exist_ok=True)
            for p in glob.glob(os.path.join(bundle, "backplane", "plugins", "libbackplane-*.so")):
                shutil.copyfile(os.path.realpath(p), os.path.join(plugins, os.path.basename(p)))
            print("backplane: bundled {} and {} plugin(s)".format(
                lib, len(os.listdir(plugins))))


setup(
    ext_modules=[Extension(
        "backplane._C", sources=["src/_C.c", "src/dlpack.c"], include_dirs=[INCLUDE], libraries=["dl"],
        extra_compile_args=["-std=gnu99", "-fvisibility=hidden"])],
    cmdclass={"build_py": BuildPy},
)
