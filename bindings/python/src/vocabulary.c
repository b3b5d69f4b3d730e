/*
 * vocabulary.c — the lists of backplane/vocabulary.h and the C API's integer
 * constants as attributes of backplane._C.
 */
#include "extension.h"

/* ---- the vocabulary ------------------------------------------------------
 * BP_STATUS_LIST, BP_DTYPE_LIST, BP_OP_FAMILY_LIST, BP_OP_LIST,
 * BP_COLLECTIVE_LIST and BP_REDUCE_OP_LIST of
 * vocabulary.h as module attributes, one tuple per entry, in list order:
 *   statuses     (value, "BP_ERR_SHAPE", doc)
 *   dtypes       (value, "float32", size in bytes, kind: a DTYPE_KIND_*)
 *   op_families  (value, "binary", arity)
 *   ops          (value, "add", family name)
 *   collectives  (value, "all_reduce")
 *   reduce_ops   (value, "sum")
 * They are the header's lists as this module was built; the loaded library
 * may know more (status_name() and friends ask it). */

#define STATUS_ROW_(id, value, doc) Py_BuildValue("(iss)", value, "BP_" #id, doc),
#define DTYPE_ROW_(id, value, name, size, kind) Py_BuildValue("(isii)", value, name, size, kind),
#define FAMILY_ROW_(id, value, name, arity) Py_BuildValue("(isi)", value, name, arity),
#define OP_ROW_(id, value, name, family, dtypes, out) \
  Py_BuildValue("(iss)", value, name, bp_vocab_family_name(family)),
#define COLLECTIVE_ROW_(id, value, name) Py_BuildValue("(is)", value, name),
#define REDUCE_OP_ROW_(id, value, name, dtypes) Py_BuildValue("(is)", value, name),

/* Adds m.<name> = tuple(rows); steals the n rows, NULL where one could not
 * be made. Returns -1 with an error set on failure. */
static int add_rows(PyObject *m, const char *name, PyObject **rows, Py_ssize_t n) {
  PyObject *t = PyTuple_New(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (t && rows[i]) {
      PyTuple_SET_ITEM(t, i, rows[i]);
    } else {
      Py_XDECREF(rows[i]);
      Py_CLEAR(t);
    }
  }
  if (!t) return -1;
  if (PyModule_AddObject(m, name, t) < 0) {
    Py_DECREF(t);
    return -1;
  }
  return 0;
}
#define ADD_ROWS(m, name, rows) add_rows(m, name, rows, (Py_ssize_t)(sizeof rows / sizeof *rows))

static int add_lists(PyObject *m) {
  PyObject *statuses[] = {BP_STATUS_LIST(STATUS_ROW_)};
  if (ADD_ROWS(m, "statuses", statuses) < 0) return -1;
  PyObject *dtypes[] = {BP_DTYPE_LIST(DTYPE_ROW_)};
  if (ADD_ROWS(m, "dtypes", dtypes) < 0) return -1;
  PyObject *families[] = {BP_OP_FAMILY_LIST(FAMILY_ROW_)};
  if (ADD_ROWS(m, "op_families", families) < 0) return -1;
  PyObject *ops[] = {BP_OP_LIST(OP_ROW_)};
  if (ADD_ROWS(m, "ops", ops) < 0) return -1;
  PyObject *collectives[] = {BP_COLLECTIVE_LIST(COLLECTIVE_ROW_)};
  if (ADD_ROWS(m, "collectives", collectives) < 0) return -1;
  PyObject *reduce_ops[] = {BP_REDUCE_OP_LIST(REDUCE_OP_ROW_)};
  return ADD_ROWS(m, "reduce_ops", reduce_ops);
}

/* Integer constants: _C.AXIS_ALL is BP_AXIS_ALL, ... */
#define CONSTANT(name) {#name, BP_##name}
static const struct {
  const char *name;
  long value;
} constants[] = {
    CONSTANT(AXIS_ALL),
    CONSTANT(MAX_RANK),
    CONSTANT(API_VERSION_MAJOR),
    CONSTANT(API_VERSION_MINOR),
    CONSTANT(DTYPE_KIND_BOOL),
    CONSTANT(DTYPE_KIND_SIGNED_INT),
    CONSTANT(DTYPE_KIND_UNSIGNED_INT),
    CONSTANT(DTYPE_KIND_FLOAT),
    CONSTANT(DEVICE_CPU),
    CONSTANT(DEVICE_GPU),
    CONSTANT(DEVICE_ACCELERATOR),
};
#undef CONSTANT

/* promote(a, b) -> the dtype value two operands of dtypes a and b meet in
 * (bp_vocab_promote: types.h's table, the one home of the rule), 0 when none. */
static PyObject *m_promote(PyObject *mod, PyObject *args) {
  (void)mod;
  int a, b;
  if (!PyArg_ParseTuple(args, "ii:promote", &a, &b)) return NULL;
  return PyLong_FromLong(bp_vocab_promote(a, b));
}

static PyMethodDef vocabulary_methods[] = {
    VARARGS(promote),
    {NULL, NULL, 0, NULL}};

int add_vocabulary(PyObject *m) {
  if (PyModule_AddFunctions(m, vocabulary_methods) < 0) return -1;
  for (size_t i = 0; i < sizeof constants / sizeof *constants; ++i)
    if (PyModule_AddIntConstant(m, constants[i].name, constants[i].value) < 0) return -1;
  return add_lists(m);
}
