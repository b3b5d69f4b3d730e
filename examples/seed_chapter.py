#!/usr/bin/env python3
"""The "GPUs" chapter of Dive into Deep Learning (sec_use_gpu), cell by cell,
with Backplane's Python bindings. Each cell prints what the chapter shows;
the chapter's own lines (MXNet / PyTorch / TensorFlow / JAX editions) are in
the comments above ours.

Runs end to end on any machine: with no accelerator, try_gpu() falls back to
cpu:0 as in the chapter, and the cells that need two devices say so. With
PoCL's two OpenCL devices counted as accelerators (tests/backplane-test.toml,
POCL_DEVICES="pthread pthread"), the two-GPU flows run for real on
opencl:0 and opencl:1.

    PYTHONPATH=<build>/python python3 examples/seed_chapter.py

Options: --dtype bfloat16 (or float16, float64, ...) makes the chapter's
tensors and network in that dtype; --device reference:0 puts what the chapter
puts on try_gpu() and try_gpu(1) on that device; --record out.npz saves each
step's result (widened to float64), its dtype and the inputs drawn at random,
so that tests/python/test_seed_dtypes.py can redo the steps in float64 NumPy.
"""
import argparse
import time

import backplane as bp

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--dtype", default="float32", help="dtype of the chapter's tensors")
parser.add_argument("--device", help="the device try_gpu() and try_gpu(1) stand for")
parser.add_argument("--record", help="save the steps' results to this .npz file")
args = parser.parse_args()
DTYPE = bp.as_dtype(args.dtype)
recorded = {}


def try_gpu(i=0):
    """bp.try_gpu(i), or the device --device names."""
    return bp.device(args.device) if args.device else bp.try_gpu(i)


def try_all_gpus():
    return [bp.device(args.device)] if args.device else bp.try_all_gpus()


def record(name, t):
    """Keeps t's values (exact in float64 for every dtype) for --record."""
    if not args.record:
        return
    recorded[name] = t.to("cpu").double().numpy()
    recorded[name + ".dtype"] = str(t.dtype)


_cell = [0]


def cell(title):
    _cell[0] += 1
    print("\n[{}] {}".format(_cell[0], title))


def out(*values, step=None):
    """Prints values like a notebook's Out[] line (a tuple when several);
    step names the one value for --record."""
    print(repr(values[0]) if len(values) == 1 else repr(values))
    if step is not None:
        record(step, values[0])


# ---- !nvidia-smi ------------------------------------------------------------------
cell("!nvidia-smi  ->  the devices Backplane found")
for d in bp.devices():
    print("  {:<14} kind={:<12} accelerator={!s:<5} backend={:<13} {}".format(
        d.name, d.kind, d.is_accelerator, d.backend, d.model))

# ---- Computing devices -------------------------------------------------------------
# mxnet:   npx.cpu(), npx.gpu(), npx.gpu(1)
# pytorch: torch.device('cpu'), torch.device('cuda'), torch.device('cuda:1')
cell("cpu(), gpu(), gpu(1)")
try:
    out(bp.cpu(), bp.gpu(), bp.gpu(1))
except bp.UnknownDeviceError as e:
    # Unlike torch.device('cuda:1'), bp.gpu(i) checks that the device exists.
    print("UnknownDeviceError: {}".format(e))

# pytorch: torch.cuda.device_count()
cell("num_gpus()")
out(bp.num_gpus())

# def try_gpu(i=0): return gpu(i) if num_gpus() >= i + 1 else cpu()
# def try_all_gpus(): return [gpu(i) for i in range(num_gpus())]
cell("try_gpu(), try_gpu(10), try_all_gpus()")
out(try_gpu(), try_gpu(10), try_all_gpus())

# ---- Tensors and GPUs ---------------------------------------------------------------
# mxnet: x = np.array([1, 2, 3]); x.ctx      pytorch: x = torch.tensor([1, 2, 3]); x.device
cell("x = tensor([1, 2, 3]); x.device")
x = bp.tensor([1, 2, 3])
out(x.device)
print("(new tensors go to the configured default device, {}: [devices] default = "
      "\"auto\" picks try_gpu() like JAX does)".format(bp.current_device()))

# ---- Storage on the GPU -------------------------------------------------------------
# mxnet: X = np.ones((2, 3), ctx=try_gpu())   pytorch: X = torch.ones(2, 3, device=try_gpu())
cell("X = ones((2, 3), device=try_gpu()); X")
X = bp.ones((2, 3), dtype=DTYPE, device=try_gpu())
out(X, step="X")

# mxnet: Y = np.random.uniform(size=(2, 3), ctx=try_gpu(1))
# pytorch: Y = torch.rand(2, 3, device=try_gpu(1))
cell("Y = random.uniform((2, 3), device=try_gpu(1)); Y")
Y = bp.random.uniform((2, 3), dtype=DTYPE, device=try_gpu(1), seed=0)
out(Y, step="Y")
if args.record:  # the float32 draw Y rounds (plugin.h: random streams are float32, rounded)
    record("Y.float32", bp.random.uniform((2, 3), device=try_gpu(1), seed=0))

# tensorflow: with try_gpu(1): Y = tf.random.uniform((2, 3))
cell("with default_device(try_gpu(1)): W = ones((2, 3))   (the TensorFlow / JAX scope)")
with bp.default_device(try_gpu(1)):
    W = bp.ones((2, 3), dtype=DTYPE)
out(W.device)

# ---- Copying ----------------------------------------------------------------------
# "Do not simply add X and Y, since this will result in an exception."
cell("X + Y")
if X.device != Y.device:
    try:
        X + Y
    except bp.DeviceMismatchError as e:
        print("DeviceMismatchError: {}".format(e))
        print("  op={!r} devices={!r}".format(e.op, e.devices))
else:
    out(X + Y, step="X + Y")
    print("(X and Y are both on {}: nothing to copy on this machine)".format(X.device))
    others = [d for d in bp.devices() if d != X.device]
    if others:
        try:
            X + bp.random.uniform((2, 3), device=others[0], seed=0)
        except bp.DeviceMismatchError as e:
            print("with the other input on {}: DeviceMismatchError: {}".format(others[0], e))

# mxnet: Z = X.copyto(try_gpu(1))   pytorch: Z = X.cuda(1)
cell("Z = X.copyto(try_gpu(1)); print(X); print(Z)")
Z = X.copyto(try_gpu(1))
print(X)
print(Z)
record("Z", Z)

cell("Y + Z")
out(Y + Z, step="Y + Z")

# mxnet: Z.as_in_ctx(try_gpu(1)) is Z   pytorch: Z.cuda(1) is Z
cell("Z.as_in_ctx(try_gpu(1)) is Z")
out(Z.as_in_ctx(try_gpu(1)) is Z)
print("Z.to(try_gpu(1)) is Z: {}".format(Z.to(try_gpu(1)) is Z))
# mxnet (first edition): y.copyto(mx.gpu()) is y  ->  False: copyto always allocates
print("Z.copyto(try_gpu(1)) is Z: {}".format(Z.copyto(try_gpu(1)) is Z))

# tensorflow: with try_gpu(1): Z2 = Z;  Z2 is Z
# jax: Z2 = jax.device_put(Z, try_gpu(1)); Z2 is Z   (False in JAX)
cell("with try_gpu(1): Z2 = Z.to(current_device());  Z2 is Z")
with try_gpu(1):
    Z2 = Z.to(bp.current_device())
out(Z2 is Z)

# ---- Computing on the GPU (first MXNet edition) -----------------------------------
# mxnet: (z + 2).exp() * y
cell("(Z + 2).exp() * Y")
out((Z + 2).exp() * Y, step="(Z + 2).exp() * Y")

# ---- Reading back to the host (Chinese MXNet edition) -----------------------------
# print(y); print(y.asnumpy()); print(y.sum().asscalar())
cell("print(Y); print(Y.numpy()); print(Y.sum().item())")
print(Y)
print(Y.numpy() if DTYPE.has_numpy else Y.float().numpy())  # NumPy has no bfloat16
y_sum = Y.sum()
print(y_sum.item())
record("Y.sum()", y_sum)

# ---- Neural networks and GPUs -----------------------------------------------------
# pytorch: net = nn.Sequential(nn.LazyLinear(1)); net = net.to(device=try_gpu())
from backplane import nn  # noqa: E402  (the chapter imports it here too)

cell("net = nn.Sequential(nn.LazyLinear(1)); net = net.to(device=try_gpu()); net(X)")
net = nn.Sequential(nn.LazyLinear(1))
net = net.to(device=try_gpu(), dtype=DTYPE)
out(net(X), step="net(X)")
record("net.weight", net[0].weight.data)
record("net.bias", net[0].bias.data)

# pytorch: net[0].weight.data.device
cell("net[0].weight.data.device")
out(net[0].weight.data.device)

# mxnet: net = nn.Sequential(); net.add(nn.Dense(1)); net.initialize(ctx=try_gpu())
cell("net = nn.Sequential(); net.add(nn.Dense(1)); net.initialize(ctx=try_gpu()); net(X)")
net = nn.Sequential()
net.add(nn.Dense(1))
net.initialize(ctx=try_gpu())
net.to(DTYPE)
out(net(X))

# mxnet: net[0].weight.data().ctx
cell("net[0].weight.data().ctx")
out(net[0].weight.data().ctx)

# d2l Trainer.prepare_batch: batch = [d2l.to(a, self.gpus[0]) for a in batch]
cell("prepare_batch: [bp.to(a, gpus[0]) for a in batch]")
gpus = [bp.gpu(i) for i in range(min(1, bp.num_gpus()))]
batch = [bp.ones((4, 3), device="cpu"), bp.zeros((4, 1), device="cpu")]
if gpus:
    batch = [bp.to(a, gpus[0]) for a in batch]
out([a.device for a in batch])

# ---- Lazy execution (JAX edition) ---------------------------------------------------
# y = x ** 0.5 - jnp.log(jnp.abs(x)); y.block_until_ready()
cell("operators return before the work is done; wait() blocks (block_until_ready)")
with bp.default_device(try_gpu()):
    xl = bp.arange(1, 200_001, dtype=DTYPE)
    t0 = time.perf_counter()
    yl = xl ** 0.5 - abs(xl).log()
    t1 = time.perf_counter()
    yl.wait()
    t2 = time.perf_counter()
print("queued in {:.2f} ms, finished after {:.2f} ms; y[-1] = {:.4f}".format(
    (t1 - t0) * 1e3, (t2 - t0) * 1e3, yl[-1].item()))
record("x ** 0.5 - log(|x|)", yl)

# ---- Exercise 3: log on the device, transfer once ----------------------------------
cell("exercise 3: 100 matmuls of 100x100, Frobenius norm logged per step vs on the device")
dev = try_gpu()
A = bp.random.uniform((100, 100), dtype=DTYPE, device=dev, seed=2)
record("A", A)
if args.record:
    record("A @ A", A @ A)
steps = 100
t0 = time.perf_counter()
host_log = [float(bp.norm(A @ A)) for _ in range(steps)]  # a host round trip per step
t1 = time.perf_counter()
log = bp.zeros(steps, dtype=DTYPE, device=dev)
for i in range(steps):
    bp.norm(A @ A, out=log[i])  # stays on the device
device_log = log.tolist()  # one transfer at the end
record("norm(A @ A)", log)
t2 = time.perf_counter()
print("on {}: read each step {:.1f} ms, log on the device {:.1f} ms, same values: {}".format(
    dev, (t1 - t0) * 1e3, (t2 - t1) * 1e3,
    max(abs(a - b) for a, b in zip(host_log, device_log)) <= 1e-3 * host_log[0]))

# ---- Exercise 4: two devices at once --------------------------------------------------
cell("exercise 4: matmuls on two devices at once vs one after the other")
devs = try_all_gpus()[:2]
if len(devs) == 2:
    mats = [bp.random.uniform((128, 128), dtype=DTYPE, device=d, seed=3) for d in devs]
    for m in mats:
        (m @ m).wait()  # warm up (kernel compilation)
    t0 = time.perf_counter()
    for _ in range(10):
        r0 = mats[0] @ mats[0]
    r0.wait()
    for _ in range(10):
        r1 = mats[1] @ mats[1]
    r1.wait()
    t1 = time.perf_counter()
    for _ in range(10):
        r0 = mats[0] @ mats[0]
        r1 = mats[1] @ mats[1]
    r0.wait()
    r1.wait()
    t2 = time.perf_counter()
    print("{} then {}: {:.1f} ms; both at once: {:.1f} ms".format(
        devs[0], devs[1], (t1 - t0) * 1e3, (t2 - t1) * 1e3))
else:
    print("needs two accelerators; this run has {}".format(len(devs)))

if args.record:
    import numpy as np
    np.savez(args.record, **recorded)

print("\ndone: all cells ran")
