/*
 * dlpack.c — DLPack (https://dmlc.github.io/dlpack/latest/c_api.html, the
 * v0.8 ABI) for backplane._C: export of host tensors without a copy; import
 * of host tensors without a copy too, through bp_wrap_host, on devices whose
 * backend takes host memory (cpu, reference), and by copy elsewhere (opencl,
 * or a layout bp_wrap_host cannot express: negative strides, misaligned
 * data). Memory this module exported and a consumer hands back (bp -> torch
 * -> bp) comes back as the same tensor. The dtype mapping follows
 * BP_DTYPE_LIST: a dtype's kind gives the DLPack type code and its size the
 * bits; bfloat16 has its own code (kDLBfloat).
 */
#include "dlpack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };
enum { kDLCPU = 1 };

/* The DLPack type of a bp_dtype; 0 when it has none. */
static int dl_dtype_of(int32_t dtype, DLDataType *out) {
  int code;
  /* A float kind of its own: kDLFloat 16 bits is IEEE binary16 (float16). */
  if (dtype == BP_BFLOAT16) {
    *out = (DLDataType){kDLBfloat, 16, 1};
    return 1;
  }
  switch (bp_vocab_dtype_kind(dtype)) {
    case BP_DTYPE_KIND_FLOAT: code = kDLFloat; break;
    case BP_DTYPE_KIND_SIGNED_INT: code = kDLInt; break;
    case BP_DTYPE_KIND_UNSIGNED_INT: code = kDLUInt; break;
    case BP_DTYPE_KIND_BOOL: code = kDLBool; break;
    default: return 0;
  }
  *out = (DLDataType){(uint8_t)code, (uint8_t)(8 * bp_vocab_dtype_size(dtype)), 1};
  return 1;
}

/* The bp_dtype of a DLPack type, or BP_DTYPE_INVALID. */
static int32_t dtype_of_dl(DLDataType dl) {
  DLDataType t;
#define BP_MATCH_(id, value, name, size, kind)                                       \
  if (dl_dtype_of(value, &t) && t.code == dl.code && t.bits == dl.bits && t.lanes == dl.lanes) \
    return value;
  BP_DTYPE_LIST(BP_MATCH_)
#undef BP_MATCH_
  return BP_DTYPE_INVALID;
}

/* ---- export -------------------------------------------------------------- */

typedef struct ExportedTensor {
  DLManagedTensor managed;
  bp_tensor handle; /* one reference, released by the deleter */
  int64_t shape[BP_MAX_RANK];
  int64_t strides[BP_MAX_RANK];
  struct ExportedTensor *prev, *next; /* in g_exports while a consumer holds it */
} ExportedTensor;

/* Every export not yet deleted, so that an import of the same memory can
 * return the tensor instead of copying it. A consumer may call the deleter
 * on any thread, without the GIL (PyTorch frees from its own), hence the
 * mutex. */
static ExportedTensor *g_exports;
static pthread_mutex_t g_exports_lock = PTHREAD_MUTEX_INITIALIZER;

static void exports_add(ExportedTensor *e) {
  pthread_mutex_lock(&g_exports_lock);
  e->prev = NULL;
  e->next = g_exports;
  if (g_exports) g_exports->prev = e;
  g_exports = e;
  pthread_mutex_unlock(&g_exports_lock);
}

static void exported_deleter(DLManagedTensor *managed) {
  ExportedTensor *e = (ExportedTensor *)managed->manager_ctx;
  pthread_mutex_lock(&g_exports_lock);
  if (e->prev) e->prev->next = e->next;
  else g_exports = e->next;
  if (e->next) e->next->prev = e->prev;
  pthread_mutex_unlock(&g_exports_lock);
  if (g_library) p_bp_tensor_release(e->handle);
  free(e);
}

/* Whether two DLPack views address the same elements the same way: same
 * first byte, dtype, shape and strides (NULL strides: C order; extents of 1
 * take any stride). */
static int same_view(const DLTensor *a, const DLTensor *b) {
  if ((const char *)a->data + a->byte_offset != (const char *)b->data + b->byte_offset ||
      a->dtype.code != b->dtype.code || a->dtype.bits != b->dtype.bits ||
      a->dtype.lanes != b->dtype.lanes || a->ndim != b->ndim)
    return 0;
  int64_t ca = 1, cb = 1; /* the C-order stride, for NULL strides */
  for (int i = a->ndim - 1; i >= 0; --i) {
    if (a->shape[i] != b->shape[i]) return 0;
    const int64_t sa = a->strides ? a->strides[i] : ca, sb = b->strides ? b->strides[i] : cb;
    if (a->shape[i] != 1 && sa != sb) return 0;
    ca *= a->shape[i];
    cb *= b->shape[i];
  }
  return 1;
}

/* The tensor whose export `t` is (a new reference), or BP_NO_TENSOR. */
static bp_tensor exported_as(const DLTensor *t) {
  bp_tensor found = BP_NO_TENSOR;
  pthread_mutex_lock(&g_exports_lock);
  for (ExportedTensor *e = g_exports; e; e = e->next) {
    if (same_view(&e->managed.dl_tensor, t) && p_bp_tensor_retain(e->handle) == BP_OK) {
      found = e->handle;
      break;
    }
  }
  pthread_mutex_unlock(&g_exports_lock);
  return found;
}

static void dlpack_capsule_destructor(PyObject *capsule) {
  /* Only a capsule nobody consumed still owns its tensor. */
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  DLManagedTensor *managed = (DLManagedTensor *)PyCapsule_GetPointer(capsule, "dltensor");
  if (managed && managed->deleter) managed->deleter(managed);
  PyErr_Restore(type, value, tb);
}

PyObject *dlpack_export(PyObject *self, PyObject *args, PyObject *kwds) {
  static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$OOO:__dlpack__", kwlist, &stream,
                                   &max_version, &dl_device, &copy))
    return NULL;
  if (stream != Py_None) {
    PyErr_SetString(PyExc_BufferError,
                    "__dlpack__: stream must be None for tensors in host memory");
    return NULL;
  }
  if (copy == Py_True) {
    PyErr_SetString(PyExc_BufferError, "__dlpack__: copy=True is not supported");
    return NULL;
  }
  bp_tensor h = HANDLE(self);
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_tensor_wait(h);
  Py_END_ALLOW_THREADS
  if (st != BP_OK) return raise_status(st);
  void *address;
  CHECK(p_bp_tensor_host_address(h, &address));
  int32_t dtype;
  int32_t rank;
  CHECK(p_bp_tensor_dtype(h, &dtype));
  CHECK(p_bp_tensor_rank(h, &rank));
  DLDataType dl;
  if (!dl_dtype_of(dtype, &dl) || rank > BP_MAX_RANK) {
    PyErr_SetString(PyExc_BufferError, "__dlpack__: dtype or rank not representable");
    return NULL;
  }
  ExportedTensor *e = (ExportedTensor *)calloc(1, sizeof(ExportedTensor));
  if (!e) return PyErr_NoMemory();
  if ((st = p_bp_tensor_shape(h, e->shape)) != BP_OK ||
      (st = p_bp_tensor_strides(h, e->strides)) != BP_OK ||
      (st = p_bp_tensor_retain(h)) != BP_OK) {
    free(e);
    return raise_status(st);
  }
  e->handle = h;
  DLTensor *t = &e->managed.dl_tensor;
  t->data = address;
  t->device = (DLDevice){kDLCPU, 0};
  t->ndim = rank;
  t->dtype = dl;
  t->shape = e->shape;
  t->strides = e->strides;
  t->byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = exported_deleter;
  exports_add(e);
  PyObject *capsule = PyCapsule_New(&e->managed, "dltensor", dlpack_capsule_destructor);
  if (!capsule) exported_deleter(&e->managed);
  return capsule;
}

/* ---- import without a copy ---------------------------------------------- */

/* A producer's tensor that a Backplane tensor reads and writes in place; its
 * deleter runs once that tensor's storage is gone. */
typedef struct Adopted {
  DLManagedTensor *managed;
  struct Adopted *next; /* in g_released once Backplane lets go */
} Adopted;

/* Adopted tensors whose Backplane storage is gone, waiting for their
 * deleters. Backplane calls the release callback from any thread, and inside
 * a backend's lock when the plugin is not thread-safe: waiting there for the
 * GIL could deadlock with a thread that holds the GIL and waits for that
 * lock, and a deleter may call back into Backplane (PyTorch dropping a
 * tensor that Backplane lent it) or run Python code (NumPy's deleter
 * Py_DECREFs the array without taking the GIL). So the callback only queues;
 * a pending call (Py_AddPendingCall needs neither the GIL nor a thread
 * state) runs the deleters in the main thread with the GIL held. */
static Adopted *g_released;
static int g_drain_scheduled;
static pthread_mutex_t g_released_lock = PTHREAD_MUTEX_INITIALIZER;

static int interpreter_finalizing(void) {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

/* Calls managed's deleter with the GIL held, outside any pending exception
 * (a deleter may run Python code); what it raises cannot reach a caller. */
static void call_deleter(DLManagedTensor *managed) {
  if (!managed->deleter) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  managed->deleter(managed);
  if (PyErr_Occurred()) PyErr_WriteUnraisable(NULL);
  PyErr_Restore(type, value, tb);
}

/* Calls the deleters of every released tensor; needs the GIL. */
static int drain_released(void *unused) {
  (void)unused;
  pthread_mutex_lock(&g_released_lock);
  Adopted *list = g_released;
  g_released = NULL;
  g_drain_scheduled = 0;
  pthread_mutex_unlock(&g_released_lock);
  while (list) {
    Adopted *next = list->next;
    call_deleter(list->managed);
    free(list);
    list = next;
  }
  return 0;
}

/* bp_wrap_host's release callback. During or after interpreter shutdown the
 * producer's memory is leaked: its deleter may need an interpreter that no
 * longer exists. */
static void release_adopted(void *context) {
  Adopted *a = (Adopted *)context;
  if (!Py_IsInitialized() || interpreter_finalizing()) return;
  pthread_mutex_lock(&g_released_lock);
  a->next = g_released;
  g_released = a;
  const int schedule = !g_drain_scheduled;
  g_drain_scheduled = 1;
  pthread_mutex_unlock(&g_released_lock);
  /* The queue of pending calls is short; when it is full, the next schedule
   * or import drains this one too. */
  if (schedule && Py_AddPendingCall(drain_released, NULL) != 0) {
    pthread_mutex_lock(&g_released_lock);
    g_drain_scheduled = 0;
    pthread_mutex_unlock(&g_released_lock);
  }
}

/* A tensor on device over managed's memory: 1 when Backplane took the memory
 * (*result is the tensor, or NULL with an error set; either way the deleter
 * is Backplane's to call now), 0 when it must be copied instead (the device
 * cannot take host memory, negative strides, data not aligned to the
 * dtype; *why says which of the last two), -1 with an error set (with
 * shared_only, the device's refusal too). */
static int adopt(DLManagedTensor *managed, int32_t dtype, bp_device device, int shared_only,
                 PyObject **result, const char **why) {
  const DLTensor *t = &managed->dl_tensor;
  char *base = (char *)t->data + t->byte_offset;
  int64_t strides[MAX_SHAPE];
  if ((uintptr_t)base % (uintptr_t)(t->dtype.bits / 8) != 0) {
    *why = "its data is not aligned to its element size";
    return 0;
  }
  for (int i = 0; t->strides && i < t->ndim; ++i) {
    if (t->strides[i] < 0 && t->shape[i] > 1) {
      *why = "it has a negative stride (Backplane's views have none)";
      return 0;
    }
    /* An extent of 1 never uses its stride; bp_wrap_host wants it >= 0. */
    strides[i] = t->strides[i] < 0 ? 0 : t->strides[i];
  }
  Adopted *a = (Adopted *)malloc(sizeof(Adopted));
  if (!a) {
    PyErr_NoMemory();
    return -1;
  }
  a->managed = managed;
  a->next = NULL;
  bp_tensor out;
  const bp_status st = p_bp_wrap_host(device, dtype, t->ndim, t->shape, t->strides ? strides : NULL,
                                      base, release_adopted, a, &out);
  if (st != BP_OK) {
    free(a);
    if (st == BP_ERR_UNSUPPORTED && !shared_only) return 0;
    raise_status(st);
    return -1;
  }
  *result = wrap(out);
  return 1;
}

/* ---- import by copy ------------------------------------------------------ */

/* A copy of t's elements in C order (t is strided); NULL with an error set
 * when out of memory. */
static char *gather(const DLTensor *t, const char *base, int64_t numel, int64_t item) {
  const int nd = t->ndim;
  char *gathered = (char *)malloc((size_t)(numel * item));
  if (!gathered) {
    PyErr_NoMemory();
    return NULL;
  }
  int64_t idx[MAX_SHAPE] = {0};
  for (int64_t k = 0; k < numel; ++k) {
    int64_t off = 0;
    for (int i = 0; i < nd; ++i) off += idx[i] * t->strides[i];
    memcpy(gathered + k * item, base + off * item, (size_t)item);
    for (int i = nd - 1; i >= 0; --i) {
      if (++idx[i] < t->shape[i]) break;
      idx[i] = 0;
    }
  }
  return gathered;
}

/* A new tensor on device holding a copy of t, whose dtype is `dtype`. */
static PyObject *copy_in(const DLTensor *t, int32_t dtype, bp_device device) {
  const int nd = t->ndim;
  const int64_t item = t->dtype.bits / 8;
  const char *base = (const char *)t->data + t->byte_offset;
  int64_t numel = shape_numel(t->shape, nd);
  int contiguous = 1;
  if (t->strides) {
    int64_t expect = 1;
    for (int i = nd - 1; i >= 0; --i) {
      if (t->shape[i] != 1 && t->strides[i] != expect) contiguous = 0;
      expect *= t->shape[i];
    }
  }
  char *gathered = NULL;
  if (!contiguous && numel > 0 && !(gathered = gather(t, base, numel, item))) return NULL;
  bp_tensor out;
  bp_status st;
  const void *src = gathered ? gathered : base;
  Py_BEGIN_ALLOW_THREADS st = p_bp_from_host(device, dtype, nd, t->shape, src, &out);
  Py_END_ALLOW_THREADS
  free(gathered);
  CHECK(st);
  return wrap(out);
}

/* The dtypes of BP_DTYPE_LIST, for messages: " float32 float64 ...". */
#define BP_NAME_(id, value, name, size, kind) " " name
#define DTYPE_NAMES BP_DTYPE_LIST(BP_NAME_)

/* The tensor for a consumed DLPack tensor: the exported tensor it is, else
 * its memory adopted, else a copy (or, with shared_only, an error: the
 * device's UnsupportedError, or a BufferError saying why the layout cannot
 * be shared). as_dtype >= 0 reads the elements
 * as that dtype of the same size instead of the DLPack one (NumPy 1.24
 * exports no bool: it comes as uint8). *adopted says whether Backplane now
 * owns the call of managed's deleter. */
static PyObject *import_managed(DLManagedTensor *managed, long device, int shared_only,
                                long as_dtype, int *adopted) {
  const DLTensor *t = &managed->dl_tensor;
  const int32_t dtype = as_dtype >= 0 ? (int32_t)as_dtype : dtype_of_dl(t->dtype);
  if (t->device.device_type != kDLCPU)
    return PyErr_Format(PyExc_BufferError,
                        "from_dlpack: only host (kDLCPU) tensors can be imported, got device type %d",
                        (int)t->device.device_type);
  if (as_dtype >= 0 && bp_vocab_dtype_size(dtype) == 0)
    return PyErr_Format(PyExc_ValueError, "from_dlpack: %ld is no dtype number", as_dtype);
  if (as_dtype >= 0 && (t->dtype.lanes != 1 || t->dtype.bits != 8 * bp_vocab_dtype_size(dtype)))
    return PyErr_Format(PyExc_ValueError, "from_dlpack: %d-bit elements cannot be read as %s",
                        (int)t->dtype.bits, p_bp_dtype_name(dtype));
  if (dtype == BP_DTYPE_INVALID)
    return PyErr_Format(PyExc_TypeError,
                        "from_dlpack: unsupported DLPack dtype (code %d, %d bits, %d lanes); "
                        "backplane has" DTYPE_NAMES,
                        (int)t->dtype.code, (int)t->dtype.bits, (int)t->dtype.lanes);
  if (t->ndim < 0 || t->ndim > MAX_SHAPE)
    return PyErr_Format(PyExc_ValueError, "from_dlpack: rank %d not supported", (int)t->ndim);
  bp_tensor own = as_dtype >= 0 ? BP_NO_TENSOR : exported_as(t);
  bp_device target = (bp_device)device;
  if (own != BP_NO_TENSOR) {
    bp_device own_device;
    if (p_bp_tensor_device(own, &own_device) == BP_OK && (device < 0 || own_device == target))
      return wrap(own);
    p_bp_tensor_release(own);
  }
  if (device < 0) CHECK(p_bp_cpu(&target));
  PyObject *result = NULL;
  const char *why = "";
  const int took = adopt(managed, dtype, target, shared_only, &result, &why);
  if (took < 0) return NULL;
  *adopted = took;
  if (took) return result;
  if (shared_only)
    return PyErr_Format(PyExc_BufferError, "the memory cannot be shared: %s", why);
  return copy_in(t, dtype, target);
}

PyObject *dlpack_import(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  REQUIRE_LOADED();
  if (nargs < 2 || nargs > 4)
    return PyErr_Format(PyExc_TypeError, "from_dlpack(x, device, shared_only=0, as_dtype=-1)");
  long device = PyLong_AsLong(args[1]);
  if (device == -1 && PyErr_Occurred()) return NULL;
  const int shared_only = nargs > 2 ? PyObject_IsTrue(args[2]) : 0;
  if (shared_only < 0) return NULL;
  const long as_dtype = nargs > 3 ? PyLong_AsLong(args[3]) : -1;
  if (as_dtype == -1 && PyErr_Occurred()) return NULL;
  /* Deleters a full queue of pending calls left waiting. */
  drain_released(NULL);
  PyObject *capsule;
  if (PyCapsule_CheckExact(args[0])) {
    capsule = args[0];
    Py_INCREF(capsule);
  } else {
    capsule = PyObject_CallMethod(args[0], "__dlpack__", NULL);
    if (!capsule) return NULL;
  }
  DLManagedTensor *managed = (DLManagedTensor *)PyCapsule_GetPointer(capsule, "dltensor");
  /* Consumed from here on, even on error: the deleter is ours (or, once the
   * memory is adopted, Backplane's) to call, never the capsule's. */
  if (!managed || PyCapsule_SetName(capsule, "used_dltensor") != 0) {
    Py_DECREF(capsule);
    return NULL;
  }
  int adopted = 0;
  PyObject *result = import_managed(managed, device, shared_only, as_dtype, &adopted);
  if (!adopted) call_deleter(managed);
  Py_DECREF(capsule);
  return result;
}
