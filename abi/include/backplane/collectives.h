/*
 * backplane/collectives.h — collectives across devices and processes
 * (since 1.2). Included by backplane.h; the conventions written there hold
 * here too (statuses, the per-thread error, handles, ownership).
 *
 * Two scopes, the same four collectives (BP_COLLECTIVE_LIST) and the same
 * reductions (BP_REDUCE_OP_LIST, vocabulary.h):
 *
 * - Across the devices of this process: a list of tensors, one per
 *   participant (the d2l `allreduce` over try_all_gpus()). When every
 *   tensor is on a distinct device of one backend that has the plugin's
 *   collective entry (CUDA: NCCL; OpenCL: device-to-device copies and a
 *   reduction kernel), the backend runs it; otherwise the core stages it
 *   through host memory. The routing trace says which.
 * - Across processes (bp_dist_*, libbackplane's MPI transport, built when
 *   OpenMPI's development files were found): one tensor per process, on any
 *   device. Host and OpenCL tensors go through MPI from host memory; CUDA
 *   tensors through NCCL, its communicator bootstrapped over MPI.
 *
 * What each collective computes, for participants 0..n-1 with inputs x_j of
 * one dtype and shape S:
 *
 * - all_reduce: every participant's tensor becomes reduce over j of x_j.
 * - broadcast: every participant's tensor becomes a copy of x_root.
 * - all_gather: every participant gets a new tensor of shape [n, S...] on
 *   its device whose row j is x_j.
 * - reduce_scatter: inputs have shape [n, S...]; participant i gets a new
 *   tensor of shape S on its device: reduce over j of row i of x_j.
 *
 * Reductions: BP_REDUCE_SUM, _MEAN (the sum divided by n; integers are
 * truncated toward zero), _MAX and _MIN (on bool: or, and). SUM and MEAN of
 * bool are BP_ERR_DTYPE. Integers are exact (SUM wraps as add does); a float
 * sum is added in an order the backend picks, so results agree with a
 * sequential sum to within n - 1 roundings. Which value MAX or MIN gives
 * when an input is NaN is unspecified (NCCL and MPI differ).
 *
 * Errors name the offending participant: a shape or dtype that differs from
 * participant 0's is BP_ERR_SHAPE or BP_ERR_DTYPE naming the device (in a
 * process) or the rank (across processes), and nothing is written. The
 * in-place collectives (all_reduce, broadcast) are writes: with grad mode on
 * they refuse a tensor that requires gradients (BP_ERR_STATE), as the _out
 * functions do; no collective records a gradient.
 */
#ifndef BACKPLANE_COLLECTIVES_H
#define BACKPLANE_COLLECTIVES_H

#include "backplane/backplane.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- across the devices of this process ---------------------------------- */

/* Reduces tensors[0..count-1] into every one of them, in place. count >= 1;
 * a handle may appear once only. (since 1.2) */
BP_API bp_status bp_all_reduce(const bp_tensor *tensors, int32_t count, int32_t reduce_op);

/* Copies tensors[root] into every other tensor of the list. (since 1.2) */
BP_API bp_status bp_broadcast(const bp_tensor *tensors, int32_t count, int32_t root);

/* outputs[i] (count new handles, the caller's to release; written only on
 * success) is a tensor of shape [count, S...] on inputs[i]'s device.
 * (since 1.2) */
BP_API bp_status bp_all_gather(const bp_tensor *inputs, int32_t count, bp_tensor *outputs);

/* inputs have shape [count, S...]; outputs[i] (new handles, written only on
 * success) has shape S on inputs[i]'s device. (since 1.2) */
BP_API bp_status bp_reduce_scatter(const bp_tensor *inputs, int32_t count, int32_t reduce_op,
                                   bp_tensor *outputs);

/* ---- across processes (MPI) ---------------------------------------------- */

/* Options of bp_dist_init. Zero-fill, set struct_size; zero fields take the
 * default. */
typedef struct bp_dist_options {
  uint32_t struct_size;   /* sizeof(bp_dist_options) as the caller built it (since 1.2) */
  uint32_t reserved;      /* 0 (since 1.2) */
  double timeout_seconds; /* longest a collective waits for its peers before it fails with
                           * BP_ERR_PEER; 0: the default, 300 s, or the environment
                           * variable BACKPLANE_DIST_TIMEOUT (seconds) (since 1.2) */
} bp_dist_options;
#define BP_DIST_OPTIONS_SIZE_1_2 (offsetof(bp_dist_options, timeout_seconds) + sizeof(double))

/* Joins the process group of an MPI launch (mpirun, srun; a process started
 * alone is a group of one): initialises MPI unless the application already
 * did (then leaves it to the application to finalise). options may be NULL.
 * BP_ERR_UNSUPPORTED when this libbackplane was built without MPI;
 * BP_ERR_STATE when called twice without bp_dist_finalize. (since 1.2) */
BP_API bp_status bp_dist_init(const bp_dist_options *options);

/* Leaves the group (and finalises MPI if bp_dist_init initialised it).
 * After a collective failed on a missing peer, MPI is not finalised (it
 * would wait for the peer): the process should exit. (since 1.2) */
BP_API bp_status bp_dist_finalize(void);

/* This process's rank and the group's size; the rank among the processes
 * on this machine and their count (for try_gpu(local_rank)). BP_ERR_STATE
 * before bp_dist_init. (since 1.2) */
BP_API bp_status bp_dist_rank(int32_t *rank);
BP_API bp_status bp_dist_size(int32_t *size);
BP_API bp_status bp_dist_local_rank(int32_t *local_rank);
BP_API bp_status bp_dist_local_size(int32_t *local_size);

/* The collectives above, one tensor per process; every process of the
 * group must call the same collective with the same shape and dtype (a
 * mismatch is an error naming the rank, on every rank). A peer that does
 * not arrive within the timeout makes the call fail with
 * BP_ERR_PEER on the ranks that wait; later collectives then fail
 * at once. (since 1.2) */
BP_API bp_status bp_dist_all_reduce(bp_tensor tensor, int32_t reduce_op);
BP_API bp_status bp_dist_broadcast(bp_tensor tensor, int32_t root);
BP_API bp_status bp_dist_all_gather(bp_tensor input, bp_tensor *output);
BP_API bp_status bp_dist_reduce_scatter(bp_tensor input, int32_t reduce_op, bp_tensor *output);
/* Waits until every process has called it (bounded by the timeout). (since 1.2) */
BP_API bp_status bp_dist_barrier(void);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_COLLECTIVES_H */
