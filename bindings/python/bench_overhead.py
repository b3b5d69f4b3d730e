#!/usr/bin/env python3
"""The cost of `a + b` from Python, forced, on 1-element and 1e6-element
float32 tensors, next to NumPy (and PyTorch when installed) in the same run,
plus the wall time of a whole `python3 -c "import backplane"` process.

    PYTHONPATH=<build>/python python3 bindings/python/bench_overhead.py [--quick]

Every figure times finished work. Backplane runs operators asynchronously
and defers elementwise chains of 4096 elements or more (lazy fusion), so a
bare `a + b` may only record the addition: each Backplane statement here
ends in `.wait()`, which returns once the result is computed. NumPy and
PyTorch (on the CPU) compute before they return. The in-place `a += b` is
timed the same way, and its allocations are read from the backend's counter.

The 1-element figure is also split into what the core costs (bp_binary +
bp_tensor_wait + bp_tensor_release timed in a C loop,
backplane._C._bench_core) and what the binding adds on top (the
Python-visible total minus that). For comparison it also times the smallest
possible ctypes binding of the same forced operation.

Every candidate is timed in short batches, interleaved round after round, and
the best batch is kept: on a shared machine other processes only ever add
time, so the minimum is the figure least disturbed by them (the load average
is printed). This is a benchmark, not a test: it asserts nothing.
"""
import os
import subprocess
import sys
import timeit

# Time the package on PYTHONPATH (a build tree, an installed wheel), not the
# sources beside this script, which Python would otherwise import first.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]


def ctypes_tensor_class(lib_path):
    """The smallest ctypes binding of a forced a + b (what a pure-ctypes
    package would run on its hot path), to compare with the C extension in
    the same run."""
    import ctypes
    lib = ctypes.CDLL(lib_path)
    binary = lib.bp_binary
    binary.argtypes = [ctypes.c_int32, ctypes.c_uint64, ctypes.c_uint64,
                       ctypes.POINTER(ctypes.c_uint64)]
    binary.restype = ctypes.c_int32
    wait = lib.bp_tensor_wait
    wait.argtypes = [ctypes.c_uint64]
    wait.restype = ctypes.c_int32
    release = lib.bp_tensor_release
    release.argtypes = [ctypes.c_uint64]
    ones = lib.bp_ones
    ones.argtypes = [ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                     ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_uint64)]

    class CtypesTensor:
        __slots__ = ("handle",)

        def __init__(self, handle):
            self.handle = handle

        def __add__(self, other):
            out = ctypes.c_uint64()
            if binary(1, self.handle, other.handle, ctypes.byref(out)) != 0:
                raise RuntimeError("bp_binary failed")
            return CtypesTensor(out.value)

        def wait(self):
            if wait(self.handle) != 0:
                raise RuntimeError("bp_tensor_wait failed")
            return self

        def __del__(self):
            release(self.handle)

    def make(device_id):
        out = ctypes.c_uint64()
        shape = (ctypes.c_int64 * 1)(1)
        if ones(device_id, 1, 1, shape, ctypes.byref(out)) != 0:
            raise RuntimeError("bp_ones failed")
        return CtypesTensor(out.value)

    return make


def interleaved_best(candidates, rounds):
    """{name: best ns per call} over `rounds` interleaved batches."""
    best = {name: float("inf") for name, _, _ in candidates}
    for _ in range(rounds):
        for name, fn, number in candidates:
            best[name] = min(best[name], fn(number) / number * 1e9)
    return best


def timer(stmt, env, setup="pass"):
    t = timeit.Timer(stmt, setup, globals=env)
    return lambda n: t.timeit(n)


def import_times_ms(runs):
    """Best wall time of fresh interpreters running `pass` and `import backplane`
    (interleaved), with bytecode caches written and without them."""
    results = {}
    for label, extra in (("cached bytecode", {"PYTHONDONTWRITEBYTECODE": None}),
                         ("no bytecode cache", {"PYTHONDONTWRITEBYTECODE": "1"})):
        env = dict(os.environ)
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        subprocess.run([sys.executable, "-c", "import backplane"], check=True, env=env)  # warm
        best = {"pass": float("inf"), "import backplane": float("inf")}
        for _ in range(runs):
            for code in best:
                t0 = timeit.default_timer()
                subprocess.run([sys.executable, "-c", code], check=True, env=env)
                best[code] = min(best[code], (timeit.default_timer() - t0) * 1e3)
        results[label] = best
    return results


def inplace_allocations(bp, n):
    """Buffers the cpu:0 backend allocates for one forced a += b of n elements."""
    a, b = bp.ones(n, device="cpu:0"), bp.ones(n, device="cpu:0")
    backend = bp.cpu().backend
    before = bp.backend_counters(backend)["allocations"]
    a += b
    a.wait()
    return bp.backend_counters(backend)["allocations"] - before


def main():
    quick = "--quick" in sys.argv
    # Batches short enough (about a millisecond) for many to run without
    # being preempted on a loaded machine; many rounds to find them.
    small, large, rounds = (1000, 3, 30) if quick else (1000, 3, 200)
    import numpy as np
    import backplane as bp
    from backplane import _C

    print("python {} | numpy {} | backplane {} ({})".format(
        sys.version.split()[0], np.__version__, bp.__version__, bp.library_path()))
    print("load average before: {}".format(" ".join("{:.2f}".format(x) for x in os.getloadavg())))

    try:
        import torch
        torch.set_num_threads(1)  # as OPENBLAS_NUM_THREADS=1 would for the cpu backend
    except ImportError:
        torch = None

    cands, keep, ratios = [], [], []
    for n, number in ((1, small), (10**6, large)):
        size = "1e6" if n > 1 else "1"
        na, nb = np.ones(n, dtype=np.float32), np.ones(n, dtype=np.float32)
        np_name = "numpy float32[{}] a + b".format(size)
        cands.append((np_name, timer("a + b", {"a": na, "b": nb}), number))
        if n == 1:
            cands.append(("numpy float32[1] a + 1.0", timer("a + 1.0", {"a": na}), number))
        if torch is not None:
            ta, tb = torch.ones(n), torch.ones(n)
            cands.append(("torch {} float32[{}] a + b".format(torch.__version__, size),
                          timer("a + b", {"a": ta, "b": tb}), number))
        for dev in bp.devices() if n == 1 else [bp.cpu()]:
            a, b = bp.ones(n, device=dev), bp.ones(n, device=dev)
            (a + b).wait()
            keep += [a, b]
            name = "backplane {} float32[{}] (a + b).wait()".format(dev, size)
            cands.append((name, timer("(a + b).wait()", {"a": a, "b": b}), number))
            if dev.type == "cpu":
                ratios.append((size, name, np_name))
                c = bp.zeros(n, device=dev)
                keep.append(c)
                # c is assigned in the timed function's scope (c += b binds it there)
                cands.append(("backplane {} float32[{}] c += b; c.wait()".format(dev, size),
                              timer("c += b; c.wait()", {"c0": c, "b": b}, "c = c0"), number))
            if n == 1:
                cands.append(("backplane {} float32[1] (a + 1.0).wait()".format(dev),
                              timer("(a + 1.0).wait()", {"a": a}), number))
                cands.append(("core {} bp_binary+wait+release (C loop)".format(dev),
                              (lambda a, b: lambda k: _C._bench_core(a, b, k))(a, b), number))
            if n == 1 and dev.type == "cpu":
                make = ctypes_tensor_class(bp.library_path())
                ca, cb = make(dev.id), make(dev.id)
                keep += [ca, cb]
                cands.append(("ctypes-only binding {} (a + b).wait()".format(dev),
                              timer("(a + b).wait()", {"a": ca, "b": cb}), number))

    best = interleaved_best(cands, rounds)
    bp.synchronize()
    width = max(len(name) for name, _, _ in cands)
    for name, _, _ in cands:
        print("{:<{w}}  {:12.0f} ns".format(name, best[name], w=width))
    if torch is None:
        print("torch: not installed")
    for dev in bp.devices():
        total = best["backplane {} float32[1] (a + b).wait()".format(dev)]
        core = best["core {} bp_binary+wait+release (C loop)".format(dev)]
        print("{}: forced 1-element a + b = core {:.0f} ns + binding {:.0f} ns".format(
            dev, core, total - core))
    for size, name, np_name in ratios:
        print("backplane cpu:0 / numpy, forced a + b, {} element(s): {:.2f}".format(
            size, best[name] / best[np_name]))
    for n in (1, 10**6):
        print("cpu:0 a += b, {} element(s): {} buffer(s) allocated".format(
            n, inplace_allocations(bp, n)))

    for label, t in import_times_ms(5 if quick else 20).items():
        print("{}: python3 -c pass {:.1f} ms; python3 -c 'import backplane' {:.1f} ms "
              "(whole process; the import itself {:.1f} ms)".format(
                  label, t["pass"], t["import backplane"], t["import backplane"] - t["pass"]))
    print("load average after: {}".format(" ".join("{:.2f}".format(x) for x in os.getloadavg())))


if __name__ == "__main__":
    main()
