"""bp.cuda: torch.cuda's questions about CUDA devices, answered from the
devices the runtime found (the CUDA plugin's cuda:0, cuda:1 ...).
is_available() is true only when a CUDA device is actually present; a
machine whose accelerators are other backends (OpenCL) has them under
bp.num_gpus(), bp.try_gpu(i) and bp.try_all_gpus(), the accelerator
equivalents that take any backend."""
from . import _device, random


def _cuda_devices():
    return [d for d in _device.devices() if d.type == "cuda"]


def is_available():
    """Whether there is at least one CUDA device."""
    return bool(_cuda_devices())


def device_count():
    """The number of CUDA devices."""
    return len(_cuda_devices())


def current_device():
    """The index of the current default device when it is a CUDA device
    (torch.cuda.current_device()), else 0."""
    d = _device.current_device()
    return d.index if d.type == "cuda" else 0


def _cuda(device):
    """The Device for an index, a name or a Device (None: cuda:0)."""
    if device is None or isinstance(device, int):
        device = "cuda:{}".format(device or 0)
    return _device.device(device)


def get_device_name(device=None):
    """The model of a CUDA device (an index, a name or a Device; the first
    by default)."""
    return _cuda(device).model


def synchronize(device=None):
    """Waits for the work queued on a CUDA device (the first by default)."""
    _device.synchronize(_cuda(device))


def manual_seed(seed):
    """bp.manual_seed: one seed sequence serves every device, so the same
    seed gives the same values on cuda and cpu."""
    random.seed(seed)


manual_seed_all = manual_seed
