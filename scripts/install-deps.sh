#!/usr/bin/env bash
# Installs what Backplane needs on Debian 12 (the CUDA toolkit, when present,
# comes from NVIDIA's installer at /usr/local/cuda and is used if found).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config ccache clang-15
  libboost-dev libtomlplusplus-dev nlohmann-json3-dev catch2 libopenblas-dev libdnnl-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev clinfo
  libopenmpi-dev openmpi-bin
  python3 python3-dev python3-numpy python3-pytest python3-venv python3-pip python3-sklearn
  python3-pytest-xdist  # scripts/test-wheel.sh runs the Python tests on every core
  python3-torch  # PyTorch 1.13: the reference of the Python tests that compare with it
  python3-torchvision  # exports the classification models the ONNX tests run
)
run() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  run apt-get update -qq
  DEBIAN_FRONTEND=noninteractive run apt-get install -y -qq "${missing[@]}"
fi

# The PyPI packages the Python tests compare with that Debian 12 does not
# package (tests/python/requirements.txt: safetensors), into a directory of
# their own, which tests/python/conftest.py puts on sys.path: pip's --target
# leaves Debian's Python as apt installed it (no --break-system-packages,
# no virtual environment the tests would have to run in).
test_packages=${BACKPLANE_TEST_PACKAGES:-/opt/backplane/test-packages}
run /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
  --upgrade --target "$test_packages" -r "$(dirname "$0")/../tests/python/requirements.txt"

# The ONNX tests' PyPI packages (tests/onnx/requirements.txt: onnx, onnxruntime)
# in one virtual environment that sees Debian's packages (numpy, torch), so
# Debian's Python stays as apt installed it. CMake runs the Python tests with
# its interpreter when it exists.
venv=${BACKPLANE_TEST_VENV:-/opt/backplane/test-venv}
[ -x "$venv/bin/python" ] || run /usr/bin/python3 -m venv --system-site-packages "$venv"
run "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
  -r "$(dirname "$0")/../tests/onnx/requirements.txt"
