#!/usr/bin/env python3
"""Per-operation overhead of `a + b` on 1-element tensors, next to NumPy (and
PyTorch when installed) in the same run, plus the wall time of a whole
`python3 -c "import backplane"` process.

    PYTHONPATH=<build>/python python3 bindings/python/bench_overhead.py [--quick]

The backplane figure is split into what the core costs (bp_binary +
bp_tensor_release timed in a C loop, backplane._C._bench_core) and what the
binding adds on top (the Python-visible total minus that). For comparison it
also times the smallest possible ctypes binding of the same operation.

Every candidate is timed in short batches, interleaved round after round, and
the best batch is kept: on a shared machine other processes only ever add
time, so the minimum is the figure least disturbed by them (the load average
is printed). This is a benchmark, not a test: it asserts nothing.
"""
import os
import subprocess
import sys
import timeit


def ctypes_tensor_class(lib_path):
    """The smallest ctypes binding of a + b (what a pure-ctypes package would
    run on its hot path), to compare with the C extension in the same run."""
    import ctypes
    lib = ctypes.CDLL(lib_path)
    binary = lib.bp_binary
    binary.argtypes = [ctypes.c_int32, ctypes.c_uint64, ctypes.c_uint64,
                       ctypes.POINTER(ctypes.c_uint64)]
    binary.restype = ctypes.c_int32
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

        def __del__(self):
            release(self.handle)

    def make(device_id):
        out = ctypes.c_uint64()
        shape = (ctypes.c_int64 * 1)(1)
        if ones(device_id, 1, 1, shape, ctypes.byref(out)) != 0:
            raise RuntimeError("bp_ones failed")
        return CtypesTensor(out.value)

    return make


def interleaved_best(candidates, number, rounds):
    """{name: best ns per call} over `rounds` interleaved batches of `number`."""
    best = {name: float("inf") for name, _ in candidates}
    for _ in range(rounds):
        for name, fn in candidates:
            best[name] = min(best[name], fn(number) / number * 1e9)
    return best


def timer(stmt, env):
    t = timeit.Timer(stmt, globals=env)
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


def main():
    quick = "--quick" in sys.argv
    number, rounds = (2000, 10) if quick else (5000, 60)
    import numpy as np
    import backplane as bp
    from backplane import _C

    print("python {} | numpy {} | backplane {} ({})".format(
        sys.version.split()[0], np.__version__, bp.__version__, bp.library_path()))
    print("load average before: {}".format(" ".join("{:.2f}".format(x) for x in os.getloadavg())))

    na = np.ones(1, dtype=np.float32)
    nb = np.ones(1, dtype=np.float32)
    cands = [("numpy float32[1] a + b", timer("a + b", {"a": na, "b": nb})),
             ("numpy float32[1] a + 1.0", timer("a + 1.0", {"a": na}))]
    try:
        import torch
        ta, tb = torch.ones(1), torch.ones(1)
        cands.append(("torch float32[1] a + b", timer("a + b", {"a": ta, "b": tb})))
        torch_note = None
    except ImportError:
        torch_note = "torch: not installed (PyTorch's ~585 ns is the brief's figure, not measured here)"

    keep = []
    splits = []
    for dev in bp.devices():
        a = bp.ones(1, device=dev)
        b = bp.ones(1, device=dev)
        (a + b).wait()
        keep += [a, b]
        cands.append(("backplane {} a + b".format(dev), timer("a + b", {"a": a, "b": b})))
        cands.append(("backplane {} a + 1.0".format(dev), timer("a + 1.0", {"a": a})))
        name = "core {} bp_binary+release (C loop)".format(dev)
        cands.append((name, (lambda a, b: lambda n: _C._bench_core(a, b, n))(a, b)))
        splits.append((dev, "backplane {} a + b".format(dev), name))
        if dev.type == "cpu":
            make = ctypes_tensor_class(bp.library_path())
            ca, cb = make(dev.id), make(dev.id)
            keep += [ca, cb]
            cands.append(("ctypes-only binding {} a + b".format(dev),
                          timer("a + b", {"a": ca, "b": cb})))

    best = interleaved_best(cands, number, rounds)
    bp.synchronize()
    width = max(len(n) for n, _ in cands)
    for name, _ in cands:
        print("{:<{w}}  {:8.0f} ns".format(name, best[name], w=width))
    if torch_note:
        print(torch_note)
    for dev, total, core in splits:
        print("{}: a + b = core {:.0f} ns + binding {:.0f} ns".format(
            dev, best[core], best[total] - best[core]))
    np_ns = best["numpy float32[1] a + b"]
    cpu_ns = best.get("backplane cpu:0 a + b")
    if cpu_ns:
        print("backplane cpu:0 a + b / numpy a + b = {:.2f}".format(cpu_ns / np_ns))

    for label, t in import_times_ms(5 if quick else 20).items():
        print("{}: python3 -c pass {:.1f} ms; python3 -c 'import backplane' {:.1f} ms "
              "(whole process; the import itself {:.1f} ms)".format(
                  label, t["pass"], t["import backplane"], t["import backplane"] - t["pass"]))
    print("load average after: {}".format(" ".join("{:.2f}".format(x) for x in os.getloadavg())))


if __name__ == "__main__":
    main()
