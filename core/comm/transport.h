/*
 * The table between libbackplane and its cross-process transport,
 * libbackplane-mpi.so (comm/mpi/). Internal: both sides are built from
 * one tree, so the table carries a version and its size only to refuse a
 * module from another build instead of calling through a wrong layout.
 *
 * libbackplane never links MPI: it dlopen()s the module at bp_dist_init, so
 * that a process that never asks for it pays nothing and a build without MPI
 * still has the functions (they then say how to get it).
 *
 * C99, plain types only. Every entry returns a bp_status (types.h) and, on
 * failure, leaves a message for last_error(). The core serialises every call
 * (one collective at a time), so the module keeps one message, not one per
 * thread. No entry throws or aborts: MPI errors are returned, never fatal.
 */
#ifndef BACKPLANE_CORE_DISTRIBUTED_TRANSPORT_H
#define BACKPLANE_CORE_DISTRIBUTED_TRANSPORT_H

#include <stdint.h>

#include "backplane/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BP_TRANSPORT_VERSION 2
#define BP_TRANSPORT_FILE "libbackplane-mpi.so"
#define BP_TRANSPORT_ENTRY "bp_transport_get"

/* The dtype argument: a bp_dtype, or this for raw bytes (records the core
 * exchanges; never reduced). */
#define BP_TRANSPORT_BYTES 0

typedef struct bp_transport {
  uint32_t struct_size; /* sizeof(bp_transport) of the module's build */
  uint32_t version;     /* BP_TRANSPORT_VERSION */

  /* Joins the launch's process group: initialises MPI (at least
   * MPI_THREAD_SERIALIZED) unless it already is, and sets
   * *initialised_here to 1 when it did. BP_ERR_STATE when MPI was already
   * finalised (it cannot start twice in one process). */
  int32_t (*init)(int32_t *initialised_here);
  /* Leaves the group. With abandon 0, frees the module's communicators and
   * finalises MPI if init initialised it. With abandon 1 (a collective timed
   * out: its requests are still pending on a missing peer), touches nothing
   * in MPI, since finalising would wait for that peer. */
  int32_t (*finalize)(int32_t abandon);
  /* This process's rank and the group's size; its rank among the processes
   * of its machine and their count. */
  int32_t (*topology)(int32_t *rank, int32_t *size, int32_t *local_rank, int32_t *local_size);
  /* A version string of the MPI library ("Open MPI v4.1.4, ..."), for messages. */
  const char *(*library)(void);

  /* Collectives on host memory, every one bounded: when the group has not
   * completed it within timeout_s seconds, BP_ERR_PEER, and the request is
   * left pending (the buffers passed must then stay allocated for good).
   * count is elements of dtype per participant. reduce_op is a BP_REDUCE_*;
   * MEAN only of FLOAT16 and BFLOAT16 (the core divides the others' SUM).
   * MPI has no 16-bit floats: the module widens them exactly, reduces in
   * float32 (MEAN divides there too) and rounds once to nearest even, so
   * every rank gets the same bits (version 2). */
  int32_t (*all_reduce)(void *data, uint64_t count, int32_t dtype, int32_t reduce_op, double timeout_s);
  int32_t (*broadcast)(void *data, uint64_t count, int32_t dtype, int32_t root, double timeout_s);
  /* output: size * count elements, rank j's input at j * count. */
  int32_t (*all_gather)(const void *input, void *output, uint64_t count, int32_t dtype, double timeout_s);
  /* input: size * count elements; output (count elements): reduce_op over
   * the ranks of their input's block `rank`. */
  int32_t (*reduce_scatter)(const void *input, void *output, uint64_t count, int32_t dtype,
                            int32_t reduce_op, double timeout_s);

  /* The message of the last failure; valid until the next call. */
  const char *(*last_error)(void);
} bp_transport;

/* The module's one exported symbol. */
typedef const bp_transport *(*bp_transport_get_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_CORE_DISTRIBUTED_TRANSPORT_H */
