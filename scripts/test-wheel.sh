#!/usr/bin/env bash
# The Python package as a user installs it: `pip install ./bindings/python`
# in a fresh virtual environment, imported from another directory with no
# Backplane variable set, then the Python tests run against that installed
# package (not a build tree). Then the relocatable wheel: `pip wheel`,
# installed into a second environment elsewhere, imported with the checkout's
# copy of the build out of reach.
#
#   scripts/test-wheel.sh [BUILD_DIR]   # BUILD_DIR (default build) holds the test plugins
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=${1:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/bp-wheel-XXXXXX")
trap 'rm -rf "$work"' EXIT

unset BACKPLANE_LIB BACKPLANE_CONFIG BACKPLANE_PLUGIN_PATH PYTHONPATH
# pip builds the whole project with CMake, which need not compile anything
# BUILD_DIR's build compiled: ccache finds it if the compilations are the
# same. So the same compilers (pip's build environment sets CC and CXX to
# Python's, another name for the same gcc, which ccache counts as another
# compiler), and a build folder beside BUILD_DIR, one level below the
# checkout: ccache, given CCACHE_BASEDIR at the checkout (as .ci/run sets
# it), rewrites paths relative to the build folder, so only at the same depth
# are they the same (in bindings/python/build/<tag>, the pyproject's
# default, every file would compile again). Both pip commands below share
# it: the second builds nothing new.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$repo/$build/CMakeCache.txt"; }
cmake_settings=(
  --config-settings=build-dir="$repo/build-wheel"
  --config-settings=cmake.define.CMAKE_C_COMPILER="$(cached CMAKE_C_COMPILER)"
  --config-settings=cmake.define.CMAKE_CXX_COMPILER="$(cached CMAKE_CXX_COMPILER)"
)
# --system-site-packages: NumPy and pytest from Debian (no download for them).
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "${cmake_settings[@]}" \
  "$repo/bindings/python"

cd "$work"
"$work/venv/bin/python" - <<'EOF'
import os, backplane as bp
pkg = os.path.dirname(bp.__file__)
assert "site-packages" in pkg, pkg
assert os.path.dirname(bp.library_path()) == pkg, bp.library_path()
names = [d.name for d in bp.devices()]
assert "cpu:0" in names and "reference:0" in names, names
print("installed package:", pkg, "devices:", names, "version:", bp.__version__)
EOF

# The tests' own configuration and test plugins, as ctest gives them; on
# every core where pytest-xdist is installed (scripts/install-deps.sh).
workers=()
"$work/venv/bin/python" -c "import xdist" 2>/dev/null && workers=(-n auto)
env BACKPLANE_CONFIG="$repo/tests/backplane-test.toml" \
    BACKPLANE_TEST_PLUGIN_DIR="$repo/$build/tests/test-plugins" \
    OPENBLAS_NUM_THREADS=1 POCL_DEVICES="pthread pthread" POCL_MAX_PTHREAD_COUNT=1 \
    PYTHONDONTWRITEBYTECODE=1 \
  "$work/venv/bin/python" -m pytest -q -rs -p no:cacheprovider "${workers[@]}" "$repo/tests/python"

"$work/venv/bin/pip" wheel --quiet --disable-pip-version-check --no-deps -w "$work/dist" \
  "${cmake_settings[@]}" "$repo/bindings/python"
/usr/bin/python3 -m venv --system-site-packages "$work/elsewhere/venv"
"$work/elsewhere/venv/bin/pip" install --quiet --disable-pip-version-check "$work"/dist/*.whl
mv "$work/elsewhere" "$work/moved"
"$work/moved/venv/bin/python" -c "
import backplane as bp
assert '/moved/' in bp.library_path(), bp.library_path()
x = bp.ones((2, 3), device='cpu') * 2
assert x.sum().item() == 12.0
print('wheel installed elsewhere and moved:', bp.library_path(), [d.name for d in bp.devices()])"
