/*
 * safetensors.c — the C API's safetensors files (backplane.h, since 1.6)
 * for backplane/safetensors.py: saving to a path or through a Python write
 * function, opening a path or bytes, listing and loading. Reading devices
 * and files runs without the GIL; a write function gets it back for each
 * call.
 */
#include <string.h>

#include "extension.h"

/* A new reference to None (Py_NewRef is Python 3.10's; the package takes 3.8). */
static PyObject *none(void) {
  Py_INCREF(Py_None);
  return Py_None;
}

/* ---- the arguments of a save --------------------------------------------- */

/* The C arrays of a save, over the Python objects they point into. */
typedef struct {
  Py_ssize_t n, m;
  bp_named_tensor *tensors;
  bp_metadata_entry *metadata;
  PyObject *names_seq, *tensors_seq, *meta_seq; /* kept alive for the call */
} SaveArgs;

static void save_args_free(SaveArgs *a) {
  PyMem_Free(a->tensors);
  PyMem_Free(a->metadata);
  Py_XDECREF(a->names_seq);
  Py_XDECREF(a->tensors_seq);
  Py_XDECREF(a->meta_seq);
}

/* A str as UTF-8 without NUL characters (C strings cannot hold them);
 * NULL with an error naming what otherwise. */
static const char *utf8_of(PyObject *s, const char *what) {
  if (!PyUnicode_Check(s)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(s)->tp_name);
    return NULL;
  }
  Py_ssize_t size;
  const char *text = PyUnicode_AsUTF8AndSize(s, &size);
  if (text && (Py_ssize_t)strlen(text) != size) {
    PyErr_Format(PyExc_ValueError, "%s %R holds a NUL character, which the C API's strings cannot", what, s);
    return NULL;
  }
  return text;
}

/* names (str), tensors and metadata ((key, value) pairs) into a; 0, or -1
 * with an error set (a is freed by the caller either way). */
static int save_args(PyObject *names, PyObject *tensors, PyObject *metadata, SaveArgs *a) {
  memset(a, 0, sizeof *a);
  a->names_seq = PySequence_Fast(names, "names must be a sequence");
  a->tensors_seq = a->names_seq ? PySequence_Fast(tensors, "tensors must be a sequence") : NULL;
  a->meta_seq = a->tensors_seq ? PySequence_Fast(metadata, "metadata must be a sequence of pairs") : NULL;
  if (!a->meta_seq) return -1;
  a->n = PySequence_Fast_GET_SIZE(a->names_seq);
  a->m = PySequence_Fast_GET_SIZE(a->meta_seq);
  if (PySequence_Fast_GET_SIZE(a->tensors_seq) != a->n || a->n > INT32_MAX || a->m > INT32_MAX) {
    PyErr_SetString(PyExc_ValueError, "one name for each tensor");
    return -1;
  }
  a->tensors = PyMem_Calloc((size_t)a->n + 1, sizeof *a->tensors);
  a->metadata = PyMem_Calloc((size_t)a->m + 1, sizeof *a->metadata);
  if (!a->tensors || !a->metadata) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < a->n; ++i) {
    a->tensors[i].name = utf8_of(PySequence_Fast_GET_ITEM(a->names_seq, i), "a tensor's name");
    if (!a->tensors[i].name || !get_tensor(PySequence_Fast_GET_ITEM(a->tensors_seq, i), &a->tensors[i].tensor))
      return -1;
  }
  for (Py_ssize_t i = 0; i < a->m; ++i) {
    PyObject *pair = PySequence_Fast_GET_ITEM(a->meta_seq, i);
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
      PyErr_SetString(PyExc_TypeError, "metadata must be (key, value) pairs of str");
      return -1;
    }
    a->metadata[i].key = utf8_of(PyTuple_GET_ITEM(pair, 0), "a metadata key");
    a->metadata[i].value = a->metadata[i].key ? utf8_of(PyTuple_GET_ITEM(pair, 1), "a metadata value") : NULL;
    if (!a->metadata[i].value) return -1;
  }
  return 0;
}

/* save(path, names, tensors, metadata) */
static PyObject *m_safetensors_save(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  PyObject *path, *names, *tensors, *metadata;
  if (!PyArg_ParseTuple(args, "O&OOO:safetensors_save", PyUnicode_FSConverter, &path, &names, &tensors, &metadata))
    return NULL;
  SaveArgs a;
  PyObject *result = NULL;
  if (save_args(names, tensors, metadata, &a) == 0) {
    bp_status st;
    Py_BEGIN_ALLOW_THREADS st = p_bp_safetensors_save(PyBytes_AS_STRING(path), a.tensors, (int32_t)a.n, a.metadata,
                                                      (int32_t)a.m);
    Py_END_ALLOW_THREADS
    result = st == BP_OK ? none() : raise_status(st);
  }
  save_args_free(&a);
  Py_DECREF(path);
  return result;
}

/* What bp_safetensors_write calls: write(bytes) of a Python object, with
 * the GIL; the first exception it raises is kept for the caller. */
typedef struct {
  PyObject *write;
  PyObject *error_type, *error_value, *error_tb;
} Writer;

static int32_t write_through_python(void *context, const void *data, uint64_t n) {
  Writer *w = context;
  PyGILState_STATE gil = PyGILState_Ensure();
  int32_t failed = 1;
  if (n > (uint64_t)PY_SSIZE_T_MAX) {
    PyErr_SetString(PyExc_OverflowError, "a write of more than PY_SSIZE_T_MAX bytes");
  } else {
    PyObject *chunk = PyBytes_FromStringAndSize(data, (Py_ssize_t)n);
    PyObject *r = chunk ? PyObject_CallFunctionObjArgs(w->write, chunk, NULL) : NULL;
    Py_XDECREF(chunk);
    failed = r == NULL;
    Py_XDECREF(r);
  }
  if (failed) PyErr_Fetch(&w->error_type, &w->error_value, &w->error_tb);
  PyGILState_Release(gil);
  return failed;
}

/* write(write_fn, names, tensors, metadata): write_fn(bytes) gets the file
 * in order; an exception it raises is raised again from here. */
static PyObject *m_safetensors_write(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  Writer w = {NULL, NULL, NULL, NULL};
  PyObject *names, *tensors, *metadata;
  if (!PyArg_ParseTuple(args, "OOOO:safetensors_write", &w.write, &names, &tensors, &metadata)) return NULL;
  SaveArgs a;
  PyObject *result = NULL;
  if (save_args(names, tensors, metadata, &a) == 0) {
    bp_status st;
    Py_BEGIN_ALLOW_THREADS st = p_bp_safetensors_write(write_through_python, &w, a.tensors, (int32_t)a.n, a.metadata,
                                                       (int32_t)a.m);
    Py_END_ALLOW_THREADS
    if (w.error_type)
      PyErr_Restore(w.error_type, w.error_value, w.error_tb);
    else
      result = st == BP_OK ? none() : raise_status(st);
  }
  save_args_free(&a);
  return result;
}

/* ---- open files ----------------------------------------------------------- */

static PyObject *m_safetensors_open(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  PyObject *path;
  if (!PyUnicode_FSConverter(arg, &path)) return NULL;
  bp_safetensors f = 0;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_safetensors_open(PyBytes_AS_STRING(path), &f);
  Py_END_ALLOW_THREADS
  Py_DECREF(path);
  if (st != BP_OK) return raise_status(st);
  return PyLong_FromUnsignedLongLong(f);
}

static PyObject *m_safetensors_open_bytes(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
  bp_safetensors f = 0;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_safetensors_open_memory(view.buf, (uint64_t)view.len, &f);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (st != BP_OK) return raise_status(st);
  return PyLong_FromUnsignedLongLong(f);
}

/* A file handle argument. */
static int file_arg(PyObject *o, bp_safetensors *f) {
  *f = PyLong_AsUnsignedLongLong(o);
  return !(*f == (bp_safetensors)-1 && PyErr_Occurred());
}

static PyObject *m_safetensors_close(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  bp_safetensors f;
  if (!file_arg(arg, &f)) return NULL;
  CHECK(p_bp_safetensors_close(f));
  Py_RETURN_NONE;
}

/* The list of item(f, i) for the count(f) entries of the file handle arg;
 * NULL with the error of the first call that fails. */
static PyObject *file_list(PyObject *arg, __typeof__(bp_safetensors_count) *count,
                           PyObject *(*item)(bp_safetensors, int32_t)) {
  REQUIRE_LOADED();
  bp_safetensors f;
  int32_t n;
  if (!file_arg(arg, &f)) return NULL;
  CHECK(count(f, &n));
  PyObject *list = PyList_New(n);
  for (int32_t i = 0; list && i < n; ++i) {
    PyObject *it = item(f, i);
    if (!it) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, it);
  }
  return list;
}

/* (name, dtype number, shape tuple) */
static PyObject *entry_item(bp_safetensors f, int32_t i) {
  const char *name;
  int32_t dtype, rank;
  int64_t shape[BP_MAX_RANK];
  CHECK(p_bp_safetensors_entry(f, i, &name, &dtype, &rank, shape));
  return Py_BuildValue("(siN)", name, (int)dtype, int_tuple(shape, rank));
}

/* (key, value) */
static PyObject *metadata_item(bp_safetensors f, int32_t i) {
  const char *key, *value;
  CHECK(p_bp_safetensors_metadata(f, i, &key, &value));
  return Py_BuildValue("(ss)", key, value);
}

/* [(name, dtype number, shape tuple)] in the file's order. */
static PyObject *m_safetensors_entries(PyObject *mod, PyObject *arg) {
  (void)mod;
  return file_list(arg, p_bp_safetensors_count, entry_item);
}

/* [(key, value)] of the file's metadata. */
static PyObject *m_safetensors_metadata(PyObject *mod, PyObject *arg) {
  (void)mod;
  return file_list(arg, p_bp_safetensors_metadata_count, metadata_item);
}

/* load(file, name, device) -> tensor */
static PyObject *m_safetensors_load(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  PyObject *handle, *name_obj;
  int device;
  if (!PyArg_ParseTuple(args, "OOi:safetensors_load", &handle, &name_obj, &device)) return NULL;
  bp_safetensors f;
  const char *name = utf8_of(name_obj, "the name");
  if (!name || !file_arg(handle, &f)) return NULL;
  bp_tensor out;
  CHECK_WITHOUT_GIL(p_bp_safetensors_load(f, name, device, &out));
  return wrap(out);
}

/* load_all(file, device) -> [tensor] in the file's order */
static PyObject *m_safetensors_load_all(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  PyObject *handle;
  int device;
  if (!PyArg_ParseTuple(args, "Oi:safetensors_load_all", &handle, &device)) return NULL;
  bp_safetensors f;
  int32_t n;
  if (!file_arg(handle, &f)) return NULL;
  CHECK(p_bp_safetensors_count(f, &n));
  bp_tensor *out = PyMem_Calloc((size_t)n + 1, sizeof *out);
  if (!out) return PyErr_NoMemory();
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_safetensors_load_all(f, device, out, n);
  Py_END_ALLOW_THREADS
  if (st != BP_OK) {
    PyMem_Free(out);
    return raise_status(st);
  }
  PyObject *list = wrap_list(out, n);
  PyMem_Free(out);
  return list;
}

PyMethodDef safetensors_methods[] = {
    VARARGS(safetensors_save),
    VARARGS(safetensors_write),
    ONE_ARG(safetensors_open),
    ONE_ARG(safetensors_open_bytes),
    ONE_ARG(safetensors_close),
    ONE_ARG(safetensors_entries),
    ONE_ARG(safetensors_metadata),
    VARARGS(safetensors_load),
    VARARGS(safetensors_load_all),
    {NULL, NULL, 0, NULL},
};
