"""examples/seed_chapter.py runs end to end, in the test configuration and in
a configuration without accelerators (the chapter's fallback to cpu)."""
import os

import backplane as bp
from conftest import REPO, run_python

SCRIPT = os.path.join(REPO, "examples", "seed_chapter.py")


def run(env=None):
    r = run_python(script=SCRIPT, env=env, timeout=300)
    assert r.returncode == 0, "exit {}\nstdout:\n{}\nstderr:\n{}".format(
        r.returncode, r.stdout, r.stderr)
    assert "done: all cells ran" in r.stdout
    assert "Z.as_in_ctx(try_gpu(1)) is Z\nTrue" in r.stdout
    assert "Z.to(try_gpu(1)) is Z: True" in r.stdout
    assert "Z.copyto(try_gpu(1)) is Z: False" in r.stdout
    assert "DeviceMismatchError: add: all inputs must be on one device" in r.stdout
    assert "same values: True" in r.stdout
    return r.stdout


def test_seed_chapter_in_the_test_configuration():
    out = run()
    gpus = bp.try_all_gpus()
    assert "[3] num_gpus()\n{}\n".format(len(gpus)) in out
    if len(gpus) >= 2:  # PoCL's two devices: the two-GPU flows for real
        assert "(cpu:0, {}, {})".format(gpus[0], gpus[1]) in out
        assert "device='{}'".format(gpus[1]) in out
        assert "op='add' devices=({}, {})".format(gpus[0], gpus[1]) in out
        assert "{} then {}:".format(gpus[0], gpus[1]) in out
    else:
        print("seed chapter ran with {} accelerator(s): the two-GPU cells fell back".format(len(gpus)))


def test_seed_chapter_without_accelerators(tmp_path):
    cfg = tmp_path / "no-gpu.toml"
    cfg.write_text('[devices]\ndefault = "auto"\nfallback = ["cpu", "reference"]\n')
    out = run({"BACKPLANE_CONFIG": str(cfg)})
    assert "[3] num_gpus()\n0\n" in out
    assert "(cpu:0, cpu:0, [])" in out
    assert "UnknownDeviceError: unknown device 'gpu:0'" in out
    assert "needs two accelerators" in out
