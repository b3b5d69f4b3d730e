/*
 * extension.h — what the C files of backplane._C share (_C.c: the module and
 * the tensor type; dlpack.c: DLPack export and import). Internal: every
 * symbol here is hidden in the module (C_VISIBILITY_PRESET hidden).
 */
#ifndef BP_PYTHON_EXTENSION_H
#define BP_PYTHON_EXTENSION_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "backplane/backplane.h"

/* ---- the C API, resolved by _C.load() ----------------------------------- */

#define BP_FUNCTIONS(X)                                                                      \
  X(bp_api_version) X(bp_init) X(bp_init_from_string) X(bp_config_count) X(bp_config_entry) \
  X(bp_last_error) X(bp_last_error_status) X(bp_last_error_op) X(bp_last_error_input)       \
  X(bp_last_error_device_count) X(bp_last_error_device) X(bp_status_name) X(bp_dtype_name)  \
  X(bp_op_name) X(bp_dtype_size) X(bp_plugin_report_count) X(bp_plugin_report_get)          \
  X(bp_devices) X(bp_device_get) X(bp_device_name) X(bp_device_info_get)                    \
  X(bp_device_properties) X(bp_cpu) X(bp_gpu) X(bp_num_gpus) X(bp_try_gpu)                  \
  X(bp_try_all_gpus) X(bp_default_device) X(bp_synchronize) X(bp_empty) X(bp_zeros)         \
  X(bp_ones) X(bp_full) X(bp_arange) X(bp_random_uniform) X(bp_random_normal)               \
  X(bp_from_host) X(bp_to_host) X(bp_tensor_host_address) X(bp_wrap_host) X(bp_tensor_retain) \
  X(bp_tensor_release) X(bp_tensor_device) X(bp_tensor_dtype) X(bp_tensor_rank)             \
  X(bp_tensor_shape) X(bp_tensor_strides) X(bp_tensor_numel) X(bp_tensor_is_contiguous)     \
  X(bp_tensor_wait) X(bp_live_tensor_count) X(bp_reshape) X(bp_permute) X(bp_transpose)     \
  X(bp_slice) X(bp_select) X(bp_contiguous) X(bp_copy_to) X(bp_to) X(bp_binary)             \
  X(bp_binary_out) X(bp_binary_scalar_kind) X(bp_binary_scalar_kind_out) X(bp_unary)          \
  X(bp_unary_out)                                                                           \
  X(bp_where) X(bp_where_out) X(bp_reduce) X(bp_reduce_out) X(bp_norm) X(bp_norm_out)       \
  X(bp_matmul) X(bp_matmul_out) X(bp_cast) X(bp_assign) X(bp_trace_enable)                  \
  X(bp_trace_count) X(bp_trace_line) X(bp_trace_clear) X(bp_backend_counters_get)         \
  X(bp_fusion_enable) X(bp_fusion_enabled)                                                  \
  X(bp_scan) X(bp_scan_out) X(bp_gather_nd) X(bp_scatter_nd) X(bp_scatter_add_nd)          \
  X(bp_nonzero)                                                                             \
  X(bp_expand_dims) X(bp_concatenate) X(bp_stack) X(bp_eye) X(bp_linspace) X(bp_clip)      \
  X(bp_var) X(bp_std) X(bp_softmax) X(bp_allclose) X(bp_random_integers)                    \
  X(bp_tensor_set_requires_grad) X(bp_tensor_requires_grad) X(bp_tensor_is_leaf)            \
  X(bp_tensor_grad) X(bp_tensor_clear_grad) X(bp_tensor_grad_fn) X(bp_backward)             \
  X(bp_grad_set_enabled) X(bp_grad_is_enabled) X(bp_detach)                                \
  X(bp_all_reduce) X(bp_broadcast) X(bp_all_gather) X(bp_reduce_scatter)                   \
  X(bp_dist_init) X(bp_dist_finalize) X(bp_dist_rank) X(bp_dist_size) X(bp_dist_local_rank)  \
  X(bp_dist_local_size) X(bp_dist_all_reduce) X(bp_dist_broadcast) X(bp_dist_all_gather)     \
  X(bp_dist_reduce_scatter) X(bp_dist_barrier)

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

/* ---- tensor objects ------------------------------------------------------ */

typedef struct {
  PyObject_HEAD
  bp_tensor handle;
} TensorObject;

#define HANDLE(o) (((TensorObject *)(o))->handle)

/* Wraps a handle the caller owns into a new tensor object; releases the
 * handle on failure. */
PyObject *wrap(bp_tensor handle);

/* ---- shapes -------------------------------------------------------------- */

#define MAX_SHAPE 64 /* most axes a shape argument may have */

int64_t shape_numel(const int64_t *shape, int rank);

#endif /* BP_PYTHON_EXTENSION_H */
