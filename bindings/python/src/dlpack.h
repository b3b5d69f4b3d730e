/*
 * dlpack.h — DLPack export and import of backplane._C (dlpack.c).
 */
#ifndef BP_PYTHON_DLPACK_H
#define BP_PYTHON_DLPACK_H

#include "extension.h"

/* t.__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None):
 * waits for the tensor, then hands out its host memory in a "dltensor"
 * capsule that holds a reference to the tensor (no copy). */
PyObject *dlpack_export(PyObject *self, PyObject *args, PyObject *kwds);

/* _C.from_dlpack(obj_or_capsule, device[, shared_only[, as_dtype]]): a host DLPack tensor as a tensor
 * on device (cpu:0 for -1). Memory __dlpack__ handed out (and still held by
 * its consumer) comes back as the exported tensor itself when it is asked
 * for on that tensor's device or on none. Other memory is adopted without a
 * copy (bp_wrap_host: the tensor reads and writes the producer's memory, and
 * the producer's deleter runs in the main thread, with the GIL, once the
 * tensor's storage is gone) on devices that take host memory, and copied on
 * the others (and for negative strides or misaligned data). The optional
 * shared_only (true: raise BufferError with the reason instead of copying)
 * and as_dtype (a bp_dtype of the DLPack elements' size to read them as;
 * -1: the DLPack dtype) serve bp.from_numpy. */
PyObject *dlpack_import(PyObject *mod, PyObject *const *args, Py_ssize_t nargs);

#endif /* BP_PYTHON_DLPACK_H */
