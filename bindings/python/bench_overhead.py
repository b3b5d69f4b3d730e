#!/usr/bin/env python3
"""Per-operation overhead of `a + b` on 1-element tensors, next to NumPy (and
PyTorch when installed), all in one run; plus the wall time of
`python3 -c "import backplane"` against `python3 -c pass`.

    PYTHONPATH=<build>/python python3 bindings/python/bench_overhead.py [--quick]

The backplane figure is split into what the core costs (bp_binary +
bp_tensor_release in a C loop, backplane._C._bench_core) and what the
binding adds on top (the Python-visible total minus that). Numbers are the
best of several repeats (least disturbed by other processes); the load
average is printed because a busy machine inflates everything.
This is a benchmark, not a test: it asserts nothing.
"""
import os
import statistics
import subprocess
import sys
import timeit


def best_ns(stmt, env, number, repeat):
    times = timeit.repeat(stmt, globals=env, number=number, repeat=repeat)
    return min(times) / number * 1e9


def import_time_ms(runs):
    """Median wall time of a fresh interpreter importing backplane, minus one
    that imports nothing (interpreter start-up, for reference)."""
    def wall(code):
        samples = []
        for _ in range(runs):
            t0 = timeit.default_timer()
            subprocess.run([sys.executable, "-c", code], check=True)
            samples.append((timeit.default_timer() - t0) * 1e3)
        return statistics.median(samples)
    bare = wall("pass")
    with_bp = wall("import backplane")
    return bare, with_bp


def main():
    quick = "--quick" in sys.argv
    number = 20000 if quick else 200000
    repeat = 5 if quick else 7
    import numpy as np
    import backplane as bp
    from backplane import _C

    print("python {} | numpy {} | backplane {} ({})".format(
        sys.version.split()[0], np.__version__, bp.__version__, bp.library_path()))
    print("load average: {}".format(" ".join("{:.2f}".format(x) for x in os.getloadavg())))

    rows = []
    na = np.ones(1, dtype=np.float32)
    nb = np.ones(1, dtype=np.float32)
    rows.append(("numpy float32[1] a + b", best_ns("a + b", {"a": na, "b": nb}, number, repeat), None))
    rows.append(("numpy float32[1] a + 1.0", best_ns("a + 1.0", {"a": na}, number, repeat), None))
    try:
        import torch
        ta = torch.ones(1)
        tb = torch.ones(1)
        rows.append(("torch float32[1] a + b", best_ns("a + b", {"a": ta, "b": tb}, number, repeat), None))
    except ImportError:
        rows.append(("torch", None, "not installed"))

    for dev in [d for d in bp.devices() if d.type in ("cpu", "reference", "opencl", "cuda")]:
        a = bp.ones(1, device=dev)
        b = bp.ones(1, device=dev)
        (a + b).wait()
        total = best_ns("a + b", {"a": a, "b": b}, number, repeat)
        scalar = best_ns("a + 1.0", {"a": a}, number, repeat)
        core = min(_C._bench_core(a, b, number) for _ in range(repeat)) / number * 1e9
        bp.synchronize(dev)
        rows.append(("backplane {} a + b".format(dev), total,
                     "core {:.0f} ns + binding {:.0f} ns".format(core, total - core)))
        rows.append(("backplane {} a + 1.0".format(dev), scalar, None))

    width = max(len(r[0]) for r in rows)
    for name, ns, note in rows:
        value = "{:8.0f} ns".format(ns) if ns is not None else "       -   "
        print("{:<{w}}  {}{}".format(name, value, "   " + note if note else "", w=width))

    bare, with_bp = import_time_ms(5 if quick else 15)
    print("interpreter start-up (python3 -c pass): {:.1f} ms".format(bare))
    print("python3 -c 'import backplane' (whole process): {:.1f} ms  (import itself: {:.1f} ms)"
          .format(with_bp, with_bp - bare))


if __name__ == "__main__":
    main()
