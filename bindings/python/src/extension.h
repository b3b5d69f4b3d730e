/*
 * extension.h — what the C files of backplane._C share: _C.c (loading the
 * library, errors, the runtime's calls, the module), tensor.c (the tensor
 * type and argument conversions), ops.c (operations), normalize.c (the
 * normalisations), autograd.c, dist.c
 * (collectives), vocabulary.c (vocabulary.h as attributes), dlpack.c
 * (DLPack export and import), safetensors.c (saving and loading files),
 * spatial.c (pooling, dropout, padding and resizing). Internal: every symbol here is hidden in the
 * module (C_VISIBILITY_PRESET hidden).
 */
#ifndef BP_PYTHON_EXTENSION_H
#define BP_PYTHON_EXTENSION_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "backplane/backplane.h"

/* ---- the C API, resolved by _C.load() ----------------------------------- */

/* BP_FUNCTIONS(X): X(name) for every function of backplane.h, autograd.h and
 * collectives.h, generated at build time from the headers
 * (gen_functions.cmake), so a new C API call needs no second list here. */
#include "bp_functions.h"

/* Same names as the C API with a p_ prefix; the types come from the header.
 * Defined in _C.c. */
#define BP_DECLARE_POINTER(name) extern __typeof__(name) *p_##name;
BP_FUNCTIONS(BP_DECLARE_POINTER)
#undef BP_DECLARE_POINTER

extern void *g_library; /* dlopen handle, NULL until load() */

PyObject *not_loaded(void); /* raises RuntimeError, returns NULL */
#define REQUIRE_LOADED() \
  if (!g_library) return not_loaded()

/* ---- errors -------------------------------------------------------------- */

/* Raises the calling thread's last C API failure as the typed exception the
 * Python layer makes of it (backplane/_errors.py); returns NULL. */
PyObject *raise_status(bp_status status);

#define CHECK(call)                             \
  do {                                          \
    bp_status st_ = (call);                     \
    if (st_ != BP_OK) return raise_status(st_); \
  } while (0)

/* CHECK of a call that may wait (for a device, other ranks, a copy): it
 * runs without the GIL. */
#define CHECK_WITHOUT_GIL(call)                 \
  do {                                          \
    bp_status st_;                              \
    Py_BEGIN_ALLOW_THREADS st_ = (call);        \
    Py_END_ALLOW_THREADS                        \
    if (st_ != BP_OK) return raise_status(st_); \
  } while (0)

/* ---- tensor objects ------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  bp_tensor handle;
} TensorObject;

#define HANDLE(o) (((TensorObject *)(o))->handle)

extern PyTypeObject TensorBase_Type; /* tensor.c */
extern PyTypeObject *g_tensor_cls;   /* the Python subclass results are made of (set_hooks) */

#define IS_TENSOR(o) PyObject_TypeCheck((o), &TensorBase_Type)

/* Wraps a handle the caller owns into a new tensor object; releases the
 * handle on failure. */
PyObject *wrap(bp_tensor handle);
/* The same as an object of tp, a subclass of TensorBase. */
PyObject *wrap_as(PyTypeObject *tp, bp_tensor handle);
/* A tuple or a list of new tensor objects for n handles the caller owns;
 * every handle is released when one cannot be wrapped. */
PyObject *wrap_tuple(bp_tensor *handles, Py_ssize_t n);
PyObject *wrap_list(bp_tensor *handles, Py_ssize_t n);

/* o's handle into *out: 1, or 0 with a TypeError when o is no tensor. */
int get_tensor(PyObject *o, bp_tensor *out);
/* The same as an O& converter of PyArg_ParseTuple. */
int tensor_converter(PyObject *o, void *out);

/* A Python number as a scalar operand with its bp_scalar_kind: 1, or 0 (no
 * error set) when o is none (tensor.c says which numbers are). */
int get_scalar(PyObject *o, double *value, int32_t *kind);

/* op(a, b) for tensors and scalars on either side; NotImplemented otherwise. */
PyObject *binary(int32_t op, PyObject *a, PyObject *b);
/* op(a) of a tensor object. */
PyObject *unary(int32_t op, PyObject *a);

/* The handles of a sequence of tensors, in a PyMem block, with the sequence
 * (a new reference), which keeps the tensors alive while a call uses the
 * handles. */
typedef struct {
  PyObject *seq;
  Py_ssize_t n;
  bp_tensor *handles;
} TensorSeq;

/* The (int, [tensors], int) arguments of a call such as join and collective,
 * `usage` its signature ("name(a, tensors, b)"): 1, with *tensors for
 * tensor_seq_free; or 0 with an exception set that names the call, and
 * nothing to free. */
int int_tensors_int(const char *usage, PyObject *const *args, Py_ssize_t nargs, long *first, TensorSeq *tensors,
                    long *last);
void tensor_seq_free(TensorSeq *tensors);

/* f(t) -> tensor: defines m_f over p_bp_f for the calls that take a tensor
 * and give one; WRAP_TENSOR_WITH(CHECK_WITHOUT_GIL, f) for one that may
 * wait. */
#define WRAP_TENSOR_WITH(check, f)                       \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    bp_tensor t, out;                                    \
    if (!get_tensor(arg, &t)) return NULL;               \
    check(p_bp_##f(t, &out));                            \
    return wrap(out);                                    \
  }
#define WRAP_TENSOR(f) WRAP_TENSOR_WITH(CHECK, f)

/* ---- shapes -------------------------------------------------------------- */

#define MAX_SHAPE 64 /* most axes a shape argument may have */

int64_t shape_numel(const int64_t *shape, int rank);

/* A sequence of ints into shape[MAX_SHAPE]; the rank, or -1 with an error. */
int get_shape_arg(PyObject *seq, int64_t *shape);

/* A Python int into *v; 0 with an error set when it is not one. */
int int_arg(PyObject *o, long *v);

/* A tuple of n ints. */
PyObject *int_tuple(const int64_t *v, int32_t n);

/* ---- the module's parts -------------------------------------------------- */

/* The entry of a function m_<name> in a PyMethodDef table, by its calling
 * convention: METH_FASTCALL, METH_VARARGS, METH_O or METH_NOARGS. */
#define FAST(name) {#name, (PyCFunction)(void (*)(void))m_##name, METH_FASTCALL, NULL}
#define VARARGS(name) {#name, m_##name, METH_VARARGS, NULL}
#define ONE_ARG(name) {#name, m_##name, METH_O, NULL}
#define NO_ARGS(name) {#name, m_##name, METH_NOARGS, NULL}

/* The functions of ops.c, autograd.c, dist.c, normalize.c, attention.c and
 * safetensors.c, added by PyInit__C. */
extern PyMethodDef ops_methods[];
extern PyMethodDef autograd_methods[];
extern PyMethodDef dist_methods[];
extern PyMethodDef normalize_methods[];
extern PyMethodDef attention_methods[]; /* attention.c */
extern PyMethodDef safetensors_methods[];
extern PyMethodDef conv_methods[]; /* conv.c (since 1.6) */
extern PyMethodDef spatial_methods[]; /* spatial.c: pooling, dropout, padding, resizing (since 1.6) */

/* Adds vocabulary.h's lists and the integer constants to the module; -1
 * with an error set on failure. */
int add_vocabulary(PyObject *m);

#endif /* BP_PYTHON_EXTENSION_H */
