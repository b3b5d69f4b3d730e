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
# executable lies under BP_HIDE_ROOT (where gpu-run unpacks the bundle).
work=$scratch/unpacked
export GPU_RUN_WORK=$work BP_HIDE_ROOT=$work LD_AUDIT=$hide
mkdir -p "$work"
tar -C "$work" -xzf "$scratch/bundle/payload.tar.gz"
BP_HIDE_ALLOW=$(paste -sd: "$work/share/image-libs.txt")
export BP_HIDE_ALLOW

# The controls: a bundle that lacks libbackplane, whose programs would find
# the build tree's through their RUNPATH were it not for the hiding.
echo "---- a bundle without libbackplane: bp does not start, and gpu-run's libraries step fails"
rm "$work"/lib/libbackplane.so*
mkdir -p "$scratch/damaged"
tar -C "$work" -I "gzip -1" -cf "$scratch/damaged/payload.tar.gz" bin lib share
cp "$scratch/bundle/gpu-run" "$scratch/damaged/"
LD_LIBRARY_PATH=$work/lib BP_HIDE_ROOT=/nowhere "$work/bin/bp" --version ||
  fail "bp does not start from the build tree's libbackplane when nothing is hidden"
if LD_LIBRARY_PATH=$work/lib "$work/bin/bp" --version >"$scratch/control.log" 2>&1; then
  fail "bp started with the build tree's libbackplane: the system's libraries are not hidden"
fi
cat "$scratch/control.log"
grep -q "libbackplane.so.1: cannot open shared object file" "$scratch/control.log" ||
  fail "bp failed for another reason"
OUT=$scratch/damaged-out "$scratch/damaged/gpu-run" libraries && fail "gpu-run passed a bundle without libbackplane"
grep -q "OUTSIDE THE BUNDLE: libbackplane.so.1 => $build/lib/" "$scratch/damaged-out/libraries.log" ||
  fail "gpu-run's libraries step did not name libbackplane.so.1 as resolved outside the bundle"
rm -rf "$work" "$scratch/damaged"

summary=$scratch/out/summary.txt
echo "---- gpu-run libraries gpu"
OUT=$scratch/out "$scratch/bundle/gpu-run" libraries gpu || true
grep -Eq '^gpu +ok ' "$summary" && { echo "a CUDA device is here: run $scratch/bundle/gpu-run for the real run"; exit 77; }
rm -rf "$scratch/out"

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
rm -rf "$work"
echo "bundle: $(du -sh "$scratch/bundle" | cut -f1); every step reached 'no CUDA device' with the system's libraries hidden"
