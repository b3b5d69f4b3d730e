"""python -m backplane.onnx MODEL.onnx [--device opencl:0] [--input x.npy ...] [--bench]

Prepares the model for the device, runs it once on the inputs (.npy files
in the order of the graph's inputs, or NAME=FILE; random ones of the
declared shapes when none is given), and prints the outputs' shapes, the
node-to-operator report and, with --bench, the latency: the median of
timed runs after warm-up, each ending when its outputs are computed.
--onnxruntime adds onnxruntime's CPU execution provider on the same file
and inputs (its latency, and the largest difference of the outputs);
--threads caps the threads of both (cpu-openblas's pool, PoCL's, and
onnxruntime's intra-op threads)."""
import argparse
import os
import statistics
import sys
import time


def _args(argv):
    p = argparse.ArgumentParser(prog="python -m backplane.onnx", description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="an .onnx file")
    p.add_argument("--device", default="cpu:0", help="Backplane device (default cpu:0)")
    p.add_argument("--fallback", default=None,
                   help="device for the nodes --device cannot run (the report lists each copy)")
    p.add_argument("--input", action="append", default=[], metavar="[NAME=]FILE.npy",
                   help="an input, in the graph's order or by name (repeat)")
    p.add_argument("--bench", action="store_true", help="time the model")
    p.add_argument("--runs", type=int, default=20, help="timed runs with --bench (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    p.add_argument("--threads", type=int, default=None, help="threads of every runtime timed")
    p.add_argument("--onnxruntime", action="store_true",
                   help="also run onnxruntime's CPU execution provider on the same file")
    p.add_argument("--dtype", default=None, choices=["float16", "bfloat16"],
                   help="run a float32 model in this dtype (its float initialisers and "
                        "inputs converted once, at prepare time)")
    p.add_argument("--seed", type=int, default=0, help="seed of random inputs")
    return p.parse_args(argv)


def _start(threads):
    """Starts the runtime with the thread cap, before any device is asked."""
    if threads is None:
        return
    os.environ["POCL_MAX_PTHREAD_COUNT"] = str(threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    import backplane as bp
    base = ""
    path = os.environ.get("BACKPLANE_CONFIG")
    if path and os.path.exists(path):
        with open(path) as f:
            base = f.read()
    lines, section = [], None
    for line in base.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped
        elif section == "[backend.cpu-openblas]" and stripped.split("=")[0].strip() == "threads":
            continue  # replaced by the cap below
        lines.append(line)
    text = "\n".join(lines)
    if "[backend.cpu-openblas]" in text:
        text = text.replace("[backend.cpu-openblas]",
                            "[backend.cpu-openblas]\nthreads = {}".format(threads), 1)
    else:
        text += "\n[backend.cpu-openblas]\nthreads = {}\n".format(threads)
    bp.init(text=text, source_name="python -m backplane.onnx --threads")


def _inputs(model, specs, seed):
    import numpy as np
    from onnx import helper
    inits = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in inits]
    by_name = {}
    for k, spec in enumerate(specs):
        name, sep, path = spec.partition("=")
        if not sep:
            if k >= len(graph_inputs):
                raise SystemExit("--input: the model has {} input(s)".format(len(graph_inputs)))
            name, path = graph_inputs[k].name, spec
        by_name[name] = np.load(path)
    rng = np.random.default_rng(seed)
    out, made = [], []
    for vi in graph_inputs:
        if vi.name in by_name:
            out.append(by_name[vi.name])
            continue
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if np.dtype(dtype).kind == "f":
            value = rng.standard_normal(shape).astype(dtype)
        else:
            value = np.zeros(shape, dtype=dtype)
        out.append(value)
        made.append(vi.name)
    return [vi.name for vi in graph_inputs], out, made


def _time(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, min(times) * 1e3


def main(argv=None):
    a = _args(sys.argv[1:] if argv is None else argv)
    _start(a.threads)
    import numpy as np
    import backplane as bp
    import backplane.onnx as bponnx
    from backplane.onnx import _dtypes
    model = bponnx.load(a.model)
    names, values, made = _inputs(model, a.input, a.seed)
    if a.dtype:
        model = bponnx.convert_float_model(model, a.dtype)
        values = [v.astype(_dtypes.numpy_dtype(a.dtype)) if v.dtype == np.float32 else v
                  for v in values]
    t0 = time.perf_counter()
    rep = bponnx.prepare(model, device=a.device, fallback=a.fallback)
    prepared_ms = (time.perf_counter() - t0) * 1e3
    device = rep.device
    feeds = [_dtypes.to_device(v, device) for v in values]
    outputs = rep.run(feeds)
    device.synchronize()
    print("model {} on {} (prepared in {:.0f} ms){}".format(
        a.model, device, prepared_ms,
        "; random inputs: " + ", ".join(made) if made else ""))
    for name, v in zip(names, values):
        print("  input  {}: {} {}".format(name, list(v.shape), v.dtype))
    for name, t in zip(rep.output_names, outputs):
        print("  output {}: {} {}".format(name, list(t.shape), t.dtype))
    print(rep.report())
    ort_outputs = None
    if a.onnxruntime:
        import onnxruntime as ort
        opts = ort.SessionOptions()
        if a.threads is not None:
            opts.intra_op_num_threads = a.threads
            opts.inter_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), opts,
                                       providers=["CPUExecutionProvider"])
        feed = dict(zip(names, values))
        ort_outputs = session.run(None, feed)
        worst = 0.0
        for ours, theirs in zip(outputs, ort_outputs):
            ours = _dtypes.to_host(ours).astype(np.float64)
            theirs = np.asarray(theirs).astype(np.float64)
            scale = max(float(np.max(np.abs(theirs))), 1e-30)
            worst = max(worst, float(np.max(np.abs(ours - theirs))) / scale)
        print("onnxruntime {} (CPUExecutionProvider): largest difference of the outputs "
              "{:.2e} of their largest magnitude".format(ort.__version__, worst))
    if a.bench:
        def run_backplane():
            out = rep.run(feeds)
            device.synchronize()
            return out
        med, best = _time(run_backplane, a.runs, a.warmup)
        threads = "" if a.threads is None else ", {} thread(s)".format(a.threads)
        print("latency on {}: median {:.2f} ms, best {:.2f} ms ({} runs{})".format(
            device, med, best, a.runs, threads))
        if a.onnxruntime:
            med_o, best_o = _time(lambda: session.run(None, feed), a.runs, a.warmup)
            print("latency of onnxruntime CPU EP: median {:.2f} ms, best {:.2f} ms; "
                  "Backplane/onnxruntime time ratio {:.2f}".format(med_o, best_o, med / med_o))
    del bp
    return 0


if __name__ == "__main__":
    sys.exit(main())
