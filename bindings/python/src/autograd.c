/*
 * autograd.c — backplane/autograd.h in backplane._C: gradient flags, the
 * backward pass, grad mode, and the calls that move a tensor object's
 * reference (adopt, rebind).
 */
#include "extension.h"

/* ---- autograd (backplane/autograd.h) ------------------------------------- */

static PyObject *m_set_requires_grad(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor t;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "set_requires_grad(t, flag)");
  if (!get_tensor(args[0], &t)) return NULL;
  int flag = PyObject_IsTrue(args[1]);
  if (flag < 0) return NULL;
  CHECK(p_bp_tensor_set_requires_grad(t, flag));
  Py_RETURN_NONE;
}

WRAP_TENSOR(detach)

/* f(t) -> bool: the autograd flags of a tensor. */
#define WRAP_FLAG(f)                                     \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    bp_tensor t;                                         \
    int32_t v;                                           \
    if (!get_tensor(arg, &t)) return NULL;               \
    CHECK(p_bp_tensor_##f(t, &v));                       \
    return PyBool_FromLong(v);                           \
  }
WRAP_FLAG(requires_grad)
WRAP_FLAG(is_leaf)

/* grad(t) -> the leaf's accumulated gradient (sharing its storage) or None. */
static PyObject *m_grad(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_tensor t, g;
  if (!get_tensor(arg, &t)) return NULL;
  CHECK(p_bp_tensor_grad(t, &g));
  if (g == BP_NO_TENSOR) Py_RETURN_NONE;
  return wrap(g);
}

static PyObject *m_clear_grad(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_tensor t;
  if (!get_tensor(arg, &t)) return NULL;
  CHECK(p_bp_tensor_clear_grad(t));
  Py_RETURN_NONE;
}

/* grad_fn(t) -> the name of the operator that made t, or None for a leaf. */
static PyObject *m_grad_fn(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_tensor t;
  const char *name;
  if (!get_tensor(arg, &t)) return NULL;
  CHECK(p_bp_tensor_grad_fn(t, &name));
  if (!name) Py_RETURN_NONE;
  return PyUnicode_FromString(name);
}

/* backward(t, grad or None, retain_graph) */
static PyObject *m_backward(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor t, g = BP_NO_TENSOR;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "backward(t, grad, retain_graph)");
  if (!get_tensor(args[0], &t)) return NULL;
  if (args[1] != Py_None && !get_tensor(args[1], &g)) return NULL;
  int retain = PyObject_IsTrue(args[2]);
  if (retain < 0) return NULL;
  /* The whole backward pass: may wait for the devices. Grad mode is per
   * thread, so releasing the GIL leaves it as it is. */
  CHECK_WITHOUT_GIL(p_bp_backward(t, g, retain));
  Py_RETURN_NONE;
}

/* set_grad_enabled(flag) -> the mode it replaces (bool). */
static PyObject *m_set_grad_enabled(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  int flag = PyObject_IsTrue(arg);
  if (flag < 0) return NULL;
  int32_t previous;
  CHECK(p_bp_grad_set_enabled(flag, &previous));
  return PyBool_FromLong(previous);
}

static PyObject *m_is_grad_enabled(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  return PyBool_FromLong(p_bp_grad_is_enabled());
}

/* adopt(cls, t): a new object of cls (a subclass of TensorBase, which may
 * carry more fields: nn.Parameter) holding its own reference to t's tensor. */
static PyObject *m_adopt(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor t;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "adopt(cls, t)");
  PyObject *cls = args[0];
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &TensorBase_Type))
    return PyErr_Format(PyExc_TypeError, "adopt: the class must derive from TensorBase");
  if (!get_tensor(args[1], &t)) return NULL;
  CHECK(p_bp_tensor_retain(t));
  return wrap_as((PyTypeObject *)cls, t);
}

/* rebind(dst, src): dst now refers to src's tensor and lets go of its own,
 * so that an object others hold (a module's parameter) can move to another
 * device or dtype and stay the same object. */
static PyObject *m_rebind(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor src;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "rebind(dst, src)");
  if (!IS_TENSOR(args[0])) return PyErr_Format(PyExc_TypeError, "rebind: dst must be a tensor");
  if (!get_tensor(args[1], &src)) return NULL;
  CHECK(p_bp_tensor_retain(src));
  bp_tensor old = HANDLE(args[0]);
  HANDLE(args[0]) = src;
  if (old) p_bp_tensor_release(old);
  Py_RETURN_NONE;
}

PyMethodDef autograd_methods[] = {
    FAST(set_requires_grad),
    ONE_ARG(requires_grad),
    ONE_ARG(is_leaf),
    ONE_ARG(grad),
    ONE_ARG(clear_grad),
    ONE_ARG(grad_fn),
    FAST(backward),
    ONE_ARG(set_grad_enabled),
    NO_ARGS(is_grad_enabled),
    ONE_ARG(detach),
    FAST(adopt),
    FAST(rebind),
    {NULL, NULL, 0, NULL}};
