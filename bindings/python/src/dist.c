/*
 * dist.c — collectives of backplane._C: across the devices of this process
 * (collectives.h, bp_all_reduce ...) and across processes (bp_dist_*).
 */
#include "extension.h"

#include <string.h>

/* collective(kind, [tensors], arg): across the devices of this process.
 * all_reduce (arg: the reduce op) and broadcast (arg: the root) write in
 * place and return None; all_gather and reduce_scatter (arg: the reduce op)
 * return a list of new tensors. Runs without the GIL: staging may copy a
 * lot. */
static PyObject *m_collective(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long kind, arg;
  TensorSeq t;
  if (!int_tensors_int("collective(kind, tensors, arg)", args, nargs, &kind, &t, &arg)) return NULL;
  const Py_ssize_t n = t.n;
  bp_tensor *outs = PyMem_Malloc(sizeof(bp_tensor) * (size_t)(n > 0 ? n : 1));
  if (!outs) {
    tensor_seq_free(&t);
    return PyErr_NoMemory();
  }
  bp_status st;
  Py_BEGIN_ALLOW_THREADS switch (kind) {
    case BP_COLLECTIVE_ALL_REDUCE: st = p_bp_all_reduce(t.handles, (int32_t)n, (int32_t)arg); break;
    case BP_COLLECTIVE_BROADCAST: st = p_bp_broadcast(t.handles, (int32_t)n, (int32_t)arg); break;
    case BP_COLLECTIVE_ALL_GATHER: st = p_bp_all_gather(t.handles, (int32_t)n, outs); break;
    default: st = p_bp_reduce_scatter(t.handles, (int32_t)n, (int32_t)arg, outs); break;
  }
  Py_END_ALLOW_THREADS
  tensor_seq_free(&t);
  if (st != BP_OK) {
    PyMem_Free(outs);
    CHECK(st);
  }
  if (kind == BP_COLLECTIVE_ALL_REDUCE || kind == BP_COLLECTIVE_BROADCAST) {
    PyMem_Free(outs);
    Py_RETURN_NONE;
  }
  PyObject *list = wrap_list(outs, n);
  PyMem_Free(outs);
  return list;
}

/* ---- across processes (bp_dist_*): every call releases the GIL, since it
 * waits for the other ranks ---------------------------------------------- */

static PyObject *m_dist_init(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_dist_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.timeout_seconds = PyFloat_AsDouble(arg);
  if (PyErr_Occurred()) return NULL;
  CHECK_WITHOUT_GIL(p_bp_dist_init(&o));
  Py_RETURN_NONE;
}

/* f() -> None: the calls every rank makes together. */
#define WRAP_TOGETHER(f)                                    \
  static PyObject *m_##f(PyObject *mod, PyObject *unused) { \
    (void)mod;                                              \
    (void)unused;                                           \
    CHECK_WITHOUT_GIL(p_bp_##f());                          \
    Py_RETURN_NONE;                                         \
  }
WRAP_TOGETHER(dist_finalize)
WRAP_TOGETHER(dist_barrier)

/* dist_info() -> (rank, size, local_rank, local_size) */
static PyObject *m_dist_info(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  int32_t rank, size, local_rank, local_size;
  CHECK(p_bp_dist_rank(&rank));
  CHECK(p_bp_dist_size(&size));
  CHECK(p_bp_dist_local_rank(&local_rank));
  CHECK(p_bp_dist_local_size(&local_size));
  return Py_BuildValue("(iiii)", rank, size, local_rank, local_size);
}

/* dist_collective(kind, tensor, arg): as collective() with one tensor per
 * process; all_gather and reduce_scatter return the new tensor. */
static PyObject *m_dist_collective(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long kind, arg;
  bp_tensor t, out = 0;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "dist_collective(kind, tensor, arg)");
  if (!int_arg(args[0], &kind) || !get_tensor(args[1], &t) || !int_arg(args[2], &arg)) return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS switch (kind) {
    case BP_COLLECTIVE_ALL_REDUCE: st = p_bp_dist_all_reduce(t, (int32_t)arg); break;
    case BP_COLLECTIVE_BROADCAST: st = p_bp_dist_broadcast(t, (int32_t)arg); break;
    case BP_COLLECTIVE_ALL_GATHER: st = p_bp_dist_all_gather(t, &out); break;
    default: st = p_bp_dist_reduce_scatter(t, (int32_t)arg, &out); break;
  }
  Py_END_ALLOW_THREADS
  CHECK(st);
  if (!out) Py_RETURN_NONE;
  return wrap(out);
}

PyMethodDef dist_methods[] = {
    FAST(collective),
    ONE_ARG(dist_init),
    NO_ARGS(dist_finalize),
    NO_ARGS(dist_barrier),
    NO_ARGS(dist_info),
    FAST(dist_collective),
    {NULL, NULL, 0, NULL}};
