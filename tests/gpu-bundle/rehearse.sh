#!/usr/bin/env bash
# The GPU run rehearsed without a GPU (tests/gpu-bundle/CMakeLists.txt):
#   rehearse.sh SOURCE BUILD HIDE_LIBS_SO SCRATCH
# Packs a bundle from BUILD, runs its gpu-run with every library folder of
# this machine hidden from the bundled programs except what the GPU image
# also has (the bundle's share/image-libs.txt), and checks the summary: the
# libraries resolve, and every other step reaches "no CUDA device" cleanly
# (skipped, none failed or out of time). Exit 77 (skipped) where a CUDA
# device is present: there, run the bundle's gpu-run itself.
set -euo pipefail
src=$1 build=$2 hide=$3 scratch=$4
rm -rf "$scratch"
mkdir -p "$scratch"

fail() {
  echo "FAIL: $*"
  exit 1
}

echo "---- tools/gpu-bundle --from $build"
"$src/tools/gpu-bundle" --from "$build" --out "$scratch/bundle"

# The hiding: LD_AUDIT reaches every process, hide_libs acts in those whose
# executable lies under BP_HIDE_ROOT (the unpacked bundle).
work=$scratch/unpacked
export GPU_RUN_WORK=$work BP_HIDE_ROOT=$work LD_AUDIT=$hide
mkdir -p "$work"
tar -C "$work" -xzf "$scratch/bundle/payload.tar.gz" share/image-libs.txt
BP_HIDE_ALLOW=$(paste -sd: "$work/share/image-libs.txt")
export BP_HIDE_ALLOW

echo "---- the hiding works: without its own libbackplane, the bundle's bp finds none"
tar -C "$work" -xzf "$scratch/bundle/payload.tar.gz"
rm "$work"/lib/libbackplane.so*
export LD_LIBRARY_PATH=$work/lib:$build/lib
BP_HIDE_ROOT=/nowhere "$work/bin/bp" --version ||
  fail "bp does not start from the build tree's libbackplane when nothing is hidden"
if "$work/bin/bp" --version >"$scratch/control.log" 2>&1; then
  fail "bp started with the build tree's libbackplane: the system's libraries are not hidden"
fi
cat "$scratch/control.log"
grep -q "libbackplane.so.1: cannot open shared object file" "$scratch/control.log" ||
  fail "bp failed for another reason"
unset LD_LIBRARY_PATH
rm -rf "$work"

summary=$scratch/out/summary.txt
echo "---- gpu-run libraries gpu"
OUT=$scratch/out "$scratch/bundle/gpu-run" libraries gpu || true
grep -Eq '^gpu +ok ' "$summary" && { echo "a CUDA device is here: run $scratch/bundle/gpu-run for the real run"; exit 77; }
rm -rf "$work" "$scratch/out"

# The cases that compile every fused kernel with NVRTC need no GPU: the
# suite's own cuda_plugin_tests run them; here they would take minutes.
echo "---- gpu-run (every step; of the tests, those tagged [plugin] or [memory])"
status=0
OUT=$scratch/out GPU_RUN_TESTS='[plugin],[memory]' "$scratch/bundle/gpu-run" || status=$?
echo "---- checks"
grep -Eq '^libraries +ok ' "$summary" || fail "the bundled programs do not resolve their libraries (libraries.log)"
for step in gpu tests check devices transfer normlog training allreduce; do
  grep -Eq "^$step +skipped +[0-9.]+ +(no CUDA device|[0-9]+ cases[^:]*:.*\(no CUDA device\))" "$summary" ||
    fail "step $step did not end as 'skipped: no CUDA device': $(grep "^$step " "$summary")"
done
# Without a device the tests that need none still run: the bundle's copy of
# the plugin loaded and answered.
grep -Eq '^tests +skipped .* [1-9][0-9]* passed, 0 failed' "$summary" ||
  fail "no CUDA plugin test passed from the bundle"
((status == 0)) || fail "gpu-run exited $status"
echo "bundle: $(du -sh "$scratch/bundle" | cut -f1); every step reached 'no CUDA device' with the system's libraries hidden"
