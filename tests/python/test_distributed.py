"""backplane.distributed under a real MPI launch: the scripts in mpi/ run
with `mpirun -np 2` and `-np 3` on this machine and check their results on
every rank. Skipped, with the reason, where mpirun is not installed or this
libbackplane was built without MPI."""
import os
import shutil
import subprocess
import sys

import pytest

import backplane as bp
from conftest import run_python

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = shutil.which("mpirun")


def _mpi_reason():
    if not MPIRUN:
        return "mpirun not found (Debian: openmpi-bin)"
    probe = run_python("import backplane.distributed as d\n"
                       "try:\n    d.init(); d.finalize(); print('ok')\n"
                       "except Exception as e:\n    print(type(e).__name__, e)")
    if probe.stdout.strip() != "ok":
        return "backplane.distributed.init() failed alone: " + (probe.stdout + probe.stderr).strip()
    return None


REASON = _mpi_reason()
needs_mpi = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def mpirun(n, script, *args, timeout=300):
    cmd = [MPIRUN, "--oversubscribe", "-np", str(n)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    cmd += [sys.executable, os.path.join(HERE, "mpi", script), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_every_collective_and_dtype_across_ranks(ranks):
    r = mpirun(ranks, "collectives.py")
    assert r.returncode == 0, r.stdout + r.stderr
    for rank in range(ranks):
        assert "rank {} ok".format(rank) in r.stdout, r.stdout + r.stderr


@needs_mpi
@pytest.mark.parametrize("device", ["cpu:0", "opencl:0"])
def test_data_parallel_digits_match_one_process(device):
    pytest.importorskip("sklearn", reason="scikit-learn (python3-sklearn) holds the digits data set")
    if device not in {d.name for d in bp.devices()}:
        pytest.skip(device + " is not present here")
    r = mpirun(2, "data_parallel.py", device)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "rank 0 ok" in r.stdout and "rank 1 ok" in r.stdout, r.stdout + r.stderr


def test_a_lone_process_is_a_group_of_one_or_says_why_not():
    r = run_python("import backplane as bp, backplane.distributed as d\n"
                   "try:\n    d.init()\nexcept bp.UnsupportedError as e:\n"
                   "    print('unsupported:', e); raise SystemExit(0)\n"
                   "t = bp.ones(3, device='cpu:0')\n"
                   "d.all_reduce(t)\n"
                   "print(d.rank(), d.size(), d.local_rank(), t.numpy().tolist())\n"
                   "d.finalize()")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout.strip()
    assert out == "0 1 0 [1.0, 1.0, 1.0]" or "built without MPI" in out, out


def test_calls_before_init_are_state_errors():
    import backplane.distributed as dist
    if dist.is_initialized():
        pytest.skip("this process already joined a group")
    with pytest.raises(bp.StateError):
        dist.rank()
    with pytest.raises(bp.StateError):
        dist.all_reduce(bp.ones(2, device="cpu:0"))
    with pytest.raises(TypeError, match="expected a backplane Tensor"):
        dist.all_reduce([1, 2])
