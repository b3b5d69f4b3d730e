/*
 * backplane._C — the CPython extension under the `backplane` package.
 *
 * Written against backplane/backplane.h only. It does not link against
 * libbackplane.so: backplane/_library.py finds the library (BACKPLANE_LIB,
 * next to the package, the build tree, the system search path) and calls
 * load(path), which dlopen()s it and resolves every bp_* function used here
 * into a table of pointers typed from the header's own declarations
 * (BP_FUNCTIONS in extension.h).
 *
 * What lives in the extension is what must be fast or must be C, one job a
 * file (their shared declarations in extension.h):
 *   - _C.c (this file): load(), the error hooks, the runtime's calls
 *     (configuration, devices, plugin reports, tracing, counters) and the
 *     module itself.
 *   - tensor.c: TensorBase, a Python object owning one bp_tensor reference
 *     (released in tp_dealloc), with the arithmetic and comparison operators
 *     as type slots (a + b costs one bp_binary call and one object
 *     allocation), the unary float functions as methods, and the metadata
 *     getters; the conversions of Python arguments.
 *   - ops.c, autograd.c, dist.c, normalize.c: one thin function per C API call, taking
 *     and returning plain ints, tuples and tensors; the Python layer
 *     (backplane/_tensor.py ...) holds the argument parsing (devices,
 *     dtypes, index keys, repr).
 *   - vocabulary.c: the vocabulary of vocabulary.h as tuples (_C.statuses,
 *     _C.dtypes, _C.op_families, _C.ops), from which the Python layer makes
 *     its exception classes, dtype objects and operator numbers.
 *   - dlpack.c: DLPack export (capsule with a retained handle) and import
 *     (host memory shared through bp_wrap_host, else a copy, or the tensor
 *     itself for memory it lent).
 *   - safetensors.c: saving and opening safetensors files (1.6) for
 *     backplane/safetensors.py.
 * Every failure becomes the exception made by the error factory registered
 * from Python (backplane/_errors.py) out of the C API's structured error.
 */
#include "extension.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* ---- the C API, resolved at load() -------------------------------------- */

#define BP_DEFINE_POINTER(name) __typeof__(name) *p_##name;
BP_FUNCTIONS(BP_DEFINE_POINTER)
#undef BP_DEFINE_POINTER

void *g_library;                   /* dlopen handle, never closed */
static PyObject *g_library_path;   /* str */
static PyObject *g_error_factory;  /* callable(status, message, op, input, devices) */

PyObject *not_loaded(void) {
  PyErr_SetString(PyExc_RuntimeError,
                  "backplane: libbackplane.so is not loaded (backplane._C.load was not called)");
  return NULL;
}

/* ---- errors ------------------------------------------------------------- */

PyObject *raise_status(bp_status status) {
  const char *message = p_bp_last_error();
  const char *op = p_bp_last_error_op();
  int32_t input = p_bp_last_error_input();
  int32_t ndev = p_bp_last_error_device_count();
  if (ndev < 0) ndev = 0;
  PyObject *devices = PyTuple_New(ndev);
  if (!devices) return NULL;
  for (int32_t i = 0; i < ndev; ++i) {
    PyObject *d = PyLong_FromLong(p_bp_last_error_device(i));
    if (!d) {
      Py_DECREF(devices);
      return NULL;
    }
    PyTuple_SET_ITEM(devices, i, d);
  }
  if (!g_error_factory) {
    PyErr_Format(PyExc_RuntimeError, "%s: %s", p_bp_status_name(status), message ? message : "");
    Py_DECREF(devices);
    return NULL;
  }
  PyObject *exc = PyObject_CallFunction(g_error_factory, "isziN", (int)status,
                                        message ? message : "", op ? op : "", (int)input,
                                        devices);
  if (!exc) return NULL;
  PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
  Py_DECREF(exc);
  return NULL;
}

/* ---- list helpers -------------------------------------------------------- */

/* Appends item (a new reference, or NULL after a failed build) to list and
 * drops the caller's reference to it. On failure the list is dropped too and
 * NULL returned with the error set; otherwise the list. */
static PyObject *append_or_drop(PyObject *list, PyObject *item) {
  if (!item || PyList_Append(list, item) < 0) Py_CLEAR(list);
  Py_XDECREF(item);
  return list;
}

/* The list of item(0, ctx) .. item(n - 1, ctx), each a new reference or NULL
 * with the error set (then the list is dropped and NULL returned). */
static PyObject *list_of(int32_t n, PyObject *(*item)(int32_t i, void *ctx), void *ctx) {
  PyObject *list = PyList_New(0);
  for (int32_t i = 0; list && i < n; ++i) list = append_or_drop(list, item(i, ctx));
  return list;
}

/* ---- module functions ---------------------------------------------------- */

static PyObject *m_load(PyObject *mod, PyObject *arg) {
  (void)mod;
  if (g_library) {
    Py_INCREF(g_library_path);
    return g_library_path;
  }
  PyObject *bytes;
  if (!PyUnicode_FSConverter(arg, &bytes)) return NULL;
  const char *path = PyBytes_AS_STRING(bytes);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    PyErr_Format(PyExc_OSError, "%s", err ? err : "dlopen failed");
    Py_DECREF(bytes);
    return NULL;
  }
#define BP_RESOLVE(name)                                                                  \
  *(void **)(&p_##name) = dlsym(lib, #name);                                              \
  if (!p_##name) {                                                                        \
    PyErr_Format(PyExc_OSError,                                                           \
                 "%s: missing symbol %s (library older than the headers this extension "  \
                 "was built with?)",                                                      \
                 path, #name);                                                            \
    dlclose(lib);                                                                         \
    Py_DECREF(bytes);                                                                     \
    return NULL;                                                                          \
  }
  BP_FUNCTIONS(BP_RESOLVE)
#undef BP_RESOLVE
  uint32_t version = p_bp_api_version();
  if ((version >> 16) != BP_API_VERSION_MAJOR) {
    PyErr_Format(PyExc_OSError,
                 "%s: C API version %u.%u, but this extension was built for %d.x", path,
                 version >> 16, version & 0xffffu, BP_API_VERSION_MAJOR);
    dlclose(lib);
    Py_DECREF(bytes);
    return NULL;
  }
  /* The file the dynamic linker opened (a bare name given to the system
   * search comes back as the path it found). */
  Dl_info info;
  PyObject *used = NULL;
  if (dladdr(__extension__(void *) p_bp_api_version, &info) && info.dli_fname)
    used = PyUnicode_DecodeFSDefault(info.dli_fname);
  if (!used) {
    PyErr_Clear();
    used = PyUnicode_DecodeFSDefault(path);
  }
  Py_DECREF(bytes);
  if (!used) return NULL;
  g_library = lib;
  g_library_path = used;
  Py_INCREF(g_library_path);
  return g_library_path;
}

static PyObject *m_set_hooks(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *cls, *factory;
  if (!PyArg_ParseTuple(args, "OO:set_hooks", &cls, &factory)) return NULL;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &TensorBase_Type)) {
    PyErr_SetString(PyExc_TypeError, "set_hooks: the class must derive from TensorBase");
    return NULL;
  }
  if (((PyTypeObject *)cls)->tp_basicsize != TensorBase_Type.tp_basicsize) {
    PyErr_SetString(PyExc_TypeError, "set_hooks: the class must declare __slots__ = ()");
    return NULL;
  }
  Py_INCREF(cls);
  Py_XSETREF(g_tensor_cls, (PyTypeObject *)cls);
  Py_INCREF(factory);
  Py_XSETREF(g_error_factory, factory);
  Py_RETURN_NONE;
}

/* ---- thin wrappers -----------------------------------------------------------
 * Calls of one shape, each defined by one line: WRAP_x(f) defines m_f over
 * p_bp_f. */

/* f() -> int, for the calls that cannot fail. */
#define WRAP_NUMBER(f)                                      \
  static PyObject *m_##f(PyObject *mod, PyObject *unused) { \
    (void)mod;                                              \
    (void)unused;                                           \
    REQUIRE_LOADED();                                       \
    return PyLong_FromLongLong((long long)p_bp_##f());      \
  }
WRAP_NUMBER(api_version)
WRAP_NUMBER(num_gpus)
WRAP_NUMBER(live_tensor_count)

/* f(number) -> str: the name the loaded library gives a status, dtype, op. */
#define WRAP_NAME(f)                                     \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    REQUIRE_LOADED();                                    \
    long v;                                              \
    if (!int_arg(arg, &v)) return NULL;                  \
    return PyUnicode_FromString(p_bp_##f((int32_t)v));   \
  }
WRAP_NAME(status_name)
WRAP_NAME(dtype_name)
WRAP_NAME(op_name)

/* f() -> device id. */
#define WRAP_DEVICE(f)                                      \
  static PyObject *m_##f(PyObject *mod, PyObject *unused) { \
    (void)mod;                                              \
    (void)unused;                                           \
    REQUIRE_LOADED();                                       \
    bp_device d;                                            \
    CHECK(p_bp_##f(&d));                                    \
    return PyLong_FromLong(d);                              \
  }
WRAP_DEVICE(cpu)
WRAP_DEVICE(default_device)

/* f(i) -> device id: the i-th GPU. */
#define WRAP_GPU(f)                                      \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    REQUIRE_LOADED();                                    \
    long i;                                              \
    bp_device d;                                         \
    if (!int_arg(arg, &i)) return NULL;                  \
    CHECK(p_bp_##f((int32_t)i, &d));                     \
    return PyLong_FromLong(d);                           \
  }
WRAP_GPU(gpu)
WRAP_GPU(try_gpu)

/* f() -> tuple of device ids (the calls that fill a caller's array). */
typedef __typeof__(bp_devices) *device_list_fn;
static PyObject *device_list(device_list_fn *fn) {
  REQUIRE_LOADED();
  int32_t n = 0;
  CHECK((*fn)(NULL, 0, &n));
  bp_device ids[256];
  if (n > 256) n = 256;
  CHECK((*fn)(ids, n, &n));
  if (n > 256) n = 256;
  int64_t wide[256];
  for (int32_t i = 0; i < n; ++i) wide[i] = ids[i];
  return int_tuple(wide, n);
}
#define WRAP_DEVICE_LIST(f)                                 \
  static PyObject *m_##f(PyObject *mod, PyObject *unused) { \
    (void)mod;                                              \
    (void)unused;                                           \
    return device_list(&p_bp_##f);                          \
  }
WRAP_DEVICE_LIST(devices)
WRAP_DEVICE_LIST(try_all_gpus)


/* ---- runtime ---------------------------------------------------------------- */

static PyObject *m_init(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  PyObject *path = Py_None, *bytes = NULL;
  if (!PyArg_ParseTuple(args, "|O:init", &path)) return NULL;
  if (path != Py_None && !PyUnicode_FSConverter(path, &bytes)) return NULL;
  bp_status st = p_bp_init(bytes ? PyBytes_AS_STRING(bytes) : NULL);
  Py_XDECREF(bytes);
  CHECK(st);
  Py_RETURN_NONE;
}

static PyObject *m_init_from_string(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  const char *text, *name;
  if (!PyArg_ParseTuple(args, "ss:init_from_string", &text, &name)) return NULL;
  CHECK(p_bp_init_from_string(text, name));
  Py_RETURN_NONE;
}

static PyObject *config_entry_item(int32_t i, void *unused) {
  (void)unused;
  const char *k, *v, *o;
  CHECK(p_bp_config_entry(i, &k, &v, &o));
  return Py_BuildValue("(sss)", k, v, o);
}

static PyObject *m_config_entries(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  return list_of(p_bp_config_count(), config_entry_item, NULL);
}

static PyObject *plugin_report_item(int32_t i, void *count_devices) {
  bp_plugin_report r = {.struct_size = sizeof r};
  CHECK(p_bp_plugin_report_get(i, *(int *)count_devices, &r));
  return Py_BuildValue("(Nssssi)", PyBool_FromLong(r.loaded), r.path ? r.path : "",
                       r.name ? r.name : "", r.version ? r.version : "", r.reason ? r.reason : "",
                       (int)r.device_count);
}

static PyObject *m_plugin_reports(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  int count_devices = 0;
  if (!PyArg_ParseTuple(args, "|p:plugin_reports", &count_devices)) return NULL;
  return list_of(p_bp_plugin_report_count(), plugin_report_item, &count_devices);
}

static PyObject *m_device_get(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  bp_device d;
  CHECK(p_bp_device_get(name, &d));
  return PyLong_FromLong(d);
}

static PyObject *m_device_info(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  long id;
  if (!int_arg(arg, &id)) return NULL;
  bp_device_info info = {.struct_size = sizeof info};
  CHECK(p_bp_device_info_get((bp_device)id, &info));
  return Py_BuildValue("{s:s,s:s,s:i,s:N,s:i,s:s,s:s,s:K,s:K,s:K}", "name", info.name,
                       "backend", info.backend, "kind", info.kind, "is_accelerator",
                       PyBool_FromLong(info.is_accelerator), "index", info.index, "model",
                       info.model ? info.model : "", "plugin_path",
                       info.plugin_path ? info.plugin_path : "",
                       "memory_total", (unsigned long long)info.memory_total, "memory_free",
                       (unsigned long long)info.memory_free, "memory_in_use",
                       (unsigned long long)info.memory_in_use);
}

static PyObject *m_device_properties(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  long id;
  if (!int_arg(arg, &id)) return NULL;
  /* The count written never exceeds the capacity, so a full array may mean
   * more: ask again with twice the room. */
  int32_t capacity = 32, n = 0;
  bp_property *props = NULL;
  for (;;) {
    bp_property *grown = (bp_property *)realloc(props, (size_t)capacity * sizeof(bp_property));
    if (!grown) {
      free(props);
      return PyErr_NoMemory();
    }
    props = grown;
    memset(props, 0, (size_t)capacity * sizeof(bp_property));
    bp_status st = p_bp_device_properties((bp_device)id, props, capacity, &n);
    if (st != BP_OK) {
      free(props);
      return raise_status(st);
    }
    if (n < capacity || capacity >= 4096) break;
    capacity *= 2;
  }
  PyObject *list = PyList_New(0);
  for (int32_t i = 0; list && i < n; ++i) {
    props[i].key[sizeof props[i].key - 1] = 0;
    props[i].value[sizeof props[i].value - 1] = 0;
    list = append_or_drop(list, Py_BuildValue("(ss)", props[i].key, props[i].value));
  }
  free(props);
  return list;
}

static PyObject *m_synchronize(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  long id;
  if (!int_arg(arg, &id)) return NULL;
  CHECK_WITHOUT_GIL(p_bp_synchronize((bp_device)id));
  Py_RETURN_NONE;
}

/* device_supports(device_id, op, dtype, out_dtype) -> bool (out_dtype 0: the
 * operator's output rule). */
static PyObject *m_device_supports(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  long id;
  int op, dtype, out_dtype;
  if (!PyArg_ParseTuple(args, "liii", &id, &op, &dtype, &out_dtype)) return NULL;
  int32_t supported = 0;
  CHECK(p_bp_device_supports((bp_device)id, op, dtype, out_dtype, &supported));
  return PyBool_FromLong(supported);
}

/* ---- tracing and counters ------------------------------------------------ */

/* f(flag) -> None: the runtime's switches. */
#define WRAP_SWITCH(f)                                   \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    REQUIRE_LOADED();                                    \
    int on = PyObject_IsTrue(arg);                       \
    if (on < 0) return NULL;                             \
    CHECK(p_bp_##f(on));                                 \
    Py_RETURN_NONE;                                      \
  }
WRAP_SWITCH(trace_enable)
WRAP_SWITCH(fusion_enable)

static PyObject *m_fusion_enabled(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  return PyBool_FromLong(p_bp_fusion_enabled());
}

static PyObject *m_trace_lines(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  int32_t n = p_bp_trace_count();
  PyObject *list = PyList_New(0);
  char buf[2048];
  for (int32_t i = 0; list && i < n; ++i) {
    if (p_bp_trace_line(i, buf, (int32_t)sizeof buf) != BP_OK) continue;
    list = append_or_drop(list, PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "replace"));
  }
  return list;
}

static PyObject *m_trace_clear(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  CHECK(p_bp_trace_clear());
  Py_RETURN_NONE;
}

static PyObject *m_backend_counters(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  bp_backend_counters c = {.struct_size = sizeof c};
  CHECK(p_bp_backend_counters_get(name, &c));
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K}", "ops", (unsigned long long)c.ops,
                       "allocations", (unsigned long long)c.allocations, "bytes_host_to_device",
                       (unsigned long long)c.bytes_host_to_device, "bytes_device_to_host",
                       (unsigned long long)c.bytes_device_to_host, "bytes_device_to_device",
                       (unsigned long long)c.bytes_device_to_device, "staged_copies",
                       (unsigned long long)c.staged_copies);
}

/* The calls of the runtime; the other files add theirs in PyInit__C. */
static PyMethodDef module_methods[] = {
    {"load", m_load, METH_O, "load(path) -> path actually loaded; dlopen()s libbackplane."},
    {"set_hooks", m_set_hooks, METH_VARARGS, "set_hooks(tensor_class, error_factory)"},
    NO_ARGS(api_version),
    VARARGS(init),
    VARARGS(init_from_string),
    NO_ARGS(config_entries),
    ONE_ARG(status_name),
    ONE_ARG(dtype_name),
    ONE_ARG(op_name),
    VARARGS(plugin_reports),
    NO_ARGS(devices),
    ONE_ARG(device_get),
    ONE_ARG(device_info),
    ONE_ARG(device_properties),
    VARARGS(device_supports),
    NO_ARGS(cpu),
    ONE_ARG(gpu),
    NO_ARGS(num_gpus),
    ONE_ARG(try_gpu),
    NO_ARGS(try_all_gpus),
    NO_ARGS(default_device),
    ONE_ARG(synchronize),
    NO_ARGS(live_tensor_count),
    ONE_ARG(trace_enable),
    NO_ARGS(trace_lines),
    NO_ARGS(trace_clear),
    ONE_ARG(fusion_enable),
    NO_ARGS(fusion_enabled),
    ONE_ARG(backend_counters),
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "backplane._C",
    "CPython extension of the backplane package (wraps backplane.h).", -1, module_methods,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__C(void) {
  if (PyType_Ready(&TensorBase_Type) < 0) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Py_INCREF(&TensorBase_Type);
  if (PyModule_AddObject(m, "TensorBase", (PyObject *)&TensorBase_Type) < 0) {
    Py_DECREF(&TensorBase_Type);
    Py_DECREF(m);
    return NULL;
  }
  if (PyModule_AddFunctions(m, ops_methods) < 0 || PyModule_AddFunctions(m, autograd_methods) < 0 ||
      PyModule_AddFunctions(m, dist_methods) < 0 || PyModule_AddFunctions(m, normalize_methods) < 0 ||
      PyModule_AddFunctions(m, attention_methods) < 0 || PyModule_AddFunctions(m, safetensors_methods) < 0 ||
      PyModule_AddFunctions(m, conv_methods) < 0 ||
      PyModule_AddFunctions(m, spatial_methods) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  if (add_vocabulary(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
