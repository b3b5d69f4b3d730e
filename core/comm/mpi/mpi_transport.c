/*
 * libbackplane-mpi.so: the MPI transport of the bp_dist_* functions, the
 * table of core/comm/transport.h. libbackplane opens it at
 * bp_dist_init, so only processes that ask for collectives across processes
 * load MPI.
 *
 * Every collective is the nonblocking MPI call completed by polling
 * MPI_Test against a deadline: a blocking call would wait forever for a
 * peer that died, and MPI offers no way to bound it. On timeout the request
 * is left pending and the module refuses to finalise MPI, which would wait
 * for the same peer.
 *
 * MPI has no 16-bit floats: float16 and bfloat16 move as their 16-bit
 * patterns, and are reduced in float32 buffers of their widened values
 * (transport.h).
 */
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "backplane/half.h"
#include "comm/transport.h"

#define EXPORT __attribute__((visibility("default")))

static struct {
  MPI_Comm comm; /* a duplicate of MPI_COMM_WORLD: our messages never match the application's */
  int active;
  int initialised_here;
  int rank, size, local_rank, local_size;
  /* libnbc's iallreduce algorithm (Open MPI's MPI_T control variable), when
   * the library has it: see choose_ring(). */
  int have_algorithm_cvar;
  MPI_T_cvar_handle algorithm_cvar;
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  char error[1024];
} g = {.comm = MPI_COMM_NULL, .size = 1, .local_size = 1};

static void set_error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g.error, sizeof g.error, format, args);
  va_end(args);
}

static int32_t mpi_failed(int rc, const char *call) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error %d", rc);
  set_error("%s failed: %s", call, text);
  return BP_ERR_BACKEND;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* MPI progresses a nonblocking collective only inside MPI calls, so the wait
 * keeps testing; it yields between tests so that ranks oversubscribing the
 * cores (tests, laptops) let each other run. */
static int32_t wait_until(MPI_Request *request, double deadline, double timeout_s, const char *what) {
  for (;;) {
    int done = 0;
    int rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, what);
    if (done) return BP_OK;
    if (now_seconds() > deadline) {
      set_error("%s did not complete within %g s: a peer did not arrive", what, timeout_s);
      return BP_ERR_PEER;
    }
    sched_yield();
  }
}

static int datatype_of(int32_t dtype, MPI_Datatype *type) {
  switch (dtype) {
    case BP_TRANSPORT_BYTES: *type = MPI_BYTE; return 1;
    case BP_FLOAT32: *type = MPI_FLOAT; return 1;
    case BP_FLOAT64: *type = MPI_DOUBLE; return 1;
    case BP_INT32: *type = MPI_INT32_T; return 1;
    case BP_INT64: *type = MPI_INT64_T; return 1;
    case BP_BOOL: *type = MPI_C_BOOL; return 1;
    case BP_INT8: *type = MPI_INT8_T; return 1;
    case BP_UINT8: *type = MPI_UINT8_T; return 1;
    case BP_INT16: *type = MPI_INT16_T; return 1;
    /* Moved as bits; reduced through float32 (all_reduce_half, reduce_scatter_half). */
    case BP_FLOAT16: case BP_BFLOAT16: *type = MPI_UINT16_T; return 1;
    default: set_error("no MPI datatype for dtype %d", (int)dtype); return 0;
  }
}

static size_t element_size(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT64: case BP_INT64: return 8;
    case BP_FLOAT32: case BP_INT32: return 4;
    case BP_FLOAT16: case BP_BFLOAT16: case BP_INT16: return 2;
    default: return 1;
  }
}

static int is_half(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }

/* MPI defines MAX and MIN on numbers only; on C_BOOL, or and and are the
 * logical operations (bool MAX and MIN in collectives.h). MEAN, of halves
 * only, is their float32 SUM, divided before rounding (finish_half). */
static int op_of(int32_t reduce_op, int32_t dtype, MPI_Op *op) {
  const int logical = dtype == BP_BOOL;
  switch (reduce_op) {
    case BP_REDUCE_SUM: *op = MPI_SUM; return !logical;
    case BP_REDUCE_MEAN: *op = MPI_SUM; return is_half(dtype);
    case BP_REDUCE_MAX: *op = logical ? MPI_LOR : MPI_MAX; return 1;
    case BP_REDUCE_MIN: *op = logical ? MPI_LAND : MPI_MIN; return 1;
    default: return 0;
  }
}

static int32_t types(int32_t dtype, int32_t reduce_op, MPI_Datatype *type, MPI_Op *op) {
  if (!datatype_of(dtype, type)) return BP_ERR_DTYPE;
  if (op && !op_of(reduce_op, dtype, op)) {
    set_error("reduction %d is not one the transport runs on dtype %d", (int)reduce_op, (int)dtype);
    return BP_ERR_INVALID_ARGUMENT;
  }
  return BP_OK;
}

static int32_t require_active(void) {
  if (g.active) return BP_OK;
  set_error("the MPI transport is not initialised");
  return BP_ERR_STATE;
}

/* Open MPI's libnbc picks a binomial tree for an in-place MPI_Iallreduce on
 * fewer than 4 ranks: the whole buffer goes up the tree and back down, which
 * measured twice as slow as MPI_Allreduce from 4 MB up on 2 ranks. Its ring
 * moves 2 (n-1)/n of the buffer per rank, as MPI_Allreduce's large-message
 * algorithms do. The choice is libnbc's control variable, set for this one
 * call (and only where the user left it at "automatic") and put back right
 * after, so the application's own nonblocking allreduces are untouched. The
 * decision depends only on count and size, the same on every rank, as
 * libnbc requires of a variable of scope "all". Returns the value to put back,
 * or -1 when nothing was changed. */
static int choose_ring(uint64_t count, size_t bytes) {
  int previous = 0;
  if (!g.have_algorithm_cvar || g.size < 2 || count < (uint64_t)g.size || bytes < 65536) return -1;
  if (MPI_T_cvar_read(g.algorithm_cvar, &previous) != MPI_SUCCESS || previous != 0) return -1;
  const int ring = 1;
  if (MPI_T_cvar_write(g.algorithm_cvar, &ring) != MPI_SUCCESS) return -1;
  return previous;
}

static void restore_algorithm(int previous) {
  if (previous >= 0) MPI_T_cvar_write(g.algorithm_cvar, &previous);
}

static void find_algorithm_cvar(void) {
  int provided = 0, index = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return;
  if (MPI_T_cvar_get_index("coll_libnbc_iallreduce_algorithm", &index) == MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(index, NULL, &g.algorithm_cvar, &count) == MPI_SUCCESS && count == 1) {
    g.have_algorithm_cvar = 1;
    return;
  }
  MPI_T_finalize();
}

static int32_t transport_init(int32_t *initialised_here) {
  int initialised = 0, finalised = 0, rc, length = 0;
  MPI_Comm local = MPI_COMM_NULL;
  if (g.active) {
    set_error("the MPI transport is already initialised");
    return BP_ERR_STATE;
  }
  MPI_Finalized(&finalised);
  if (finalised) {
    set_error("MPI was finalised in this process and cannot be initialised again (MPI allows one "
              "MPI_Init per process)");
    return BP_ERR_STATE;
  }
  MPI_Initialized(&initialised);
  g.initialised_here = 0;
  if (!initialised) {
    int provided = 0;
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Init_thread");
    g.initialised_here = 1;
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      set_error("MPI provides thread level %d, below MPI_THREAD_SERIALIZED: bp_dist_* may be called "
                "from any thread, one at a time", provided);
      return BP_ERR_UNSUPPORTED;
    }
  }
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  if (rc != MPI_SUCCESS) goto failed;
  /* Errors come back as codes and become a status; the default handler
   * would abort the process. */
  MPI_Comm_set_errhandler(g.comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(g.comm, &g.rank);
  MPI_Comm_size(g.comm, &g.size);
  rc = MPI_Comm_split_type(g.comm, MPI_COMM_TYPE_SHARED, g.rank, MPI_INFO_NULL, &local);
  if (rc != MPI_SUCCESS) goto failed;
  MPI_Comm_rank(local, &g.local_rank);
  MPI_Comm_size(local, &g.local_size);
  MPI_Comm_free(&local);
  if (MPI_Get_library_version(g.library, &length) != MPI_SUCCESS) snprintf(g.library, sizeof g.library, "MPI");
  /* Open MPI's string runs over several lines: the first names the release. */
  g.library[strcspn(g.library, "\n")] = '\0';
  find_algorithm_cvar();
  g.active = 1;
  *initialised_here = g.initialised_here;
  return BP_OK;

failed:
  mpi_failed(rc, "setting up the MPI communicator");
  if (g.comm != MPI_COMM_NULL) MPI_Comm_free(&g.comm);
  if (g.initialised_here) MPI_Finalize();
  return BP_ERR_BACKEND;
}

static int32_t transport_finalize(int32_t abandon) {
  int finalised = 0;
  int32_t status = require_active();
  if (status != BP_OK) return status;
  g.active = 0;
  if (abandon) return BP_OK;
  /* The application may have finalised MPI itself before leaving the group. */
  MPI_Finalized(&finalised);
  if (finalised) return BP_OK;
  if (g.have_algorithm_cvar) {
    MPI_T_cvar_handle_free(&g.algorithm_cvar);
    MPI_T_finalize();
    g.have_algorithm_cvar = 0;
  }
  MPI_Comm_free(&g.comm);
  if (g.initialised_here) {
    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Finalize");
  }
  return BP_OK;
}

static int32_t transport_topology(int32_t *rank, int32_t *size, int32_t *local_rank, int32_t *local_size) {
  int32_t status = require_active();
  if (status != BP_OK) return status;
  *rank = g.rank;
  *size = g.size;
  *local_rank = g.local_rank;
  *local_size = g.local_size;
  return BP_OK;
}

static const char *transport_library(void) { return g.library; }

/* MPI counts are int: longer in-place buffers go in pieces of this many
 * elements. */
#define PIECE ((uint64_t)1 << 30)

/* Halves are reduced through a float32 buffer of this many elements at most
 * (64 MB), one piece after another. */
#define HALF_PIECE ((uint64_t)1 << 24)

static void widen(const uint16_t *in, float *out, uint64_t n, int32_t dtype) {
  uint64_t i;
  if (dtype == BP_FLOAT16)
    for (i = 0; i < n; ++i) out[i] = bp_f32_from_f16(in[i]);
  else
    for (i = 0; i < n; ++i) out[i] = bp_f32_from_bf16(in[i]);
}

/* The one rounding: of the float32 result, MEAN's divided by the group's
 * size first. */
static void finish_half(const float *in, uint16_t *out, uint64_t n, int32_t dtype, int32_t reduce_op) {
  const float size = (float)g.size;
  uint64_t i;
  for (i = 0; i < n; ++i) {
    const float x = reduce_op == BP_REDUCE_MEAN ? in[i] / size : in[i];
    out[i] = dtype == BP_FLOAT16 ? bp_f16_from_f32(x) : bp_bf16_from_f32(x);
  }
}

/* A float32 buffer for a half reduction; NULL with the error set. */
static float *half_buffer(uint64_t elements) {
  float *p = malloc((size_t)(elements ? elements : 1) * sizeof(float));
  if (!p) set_error("no memory for a float32 buffer of %llu elements", (unsigned long long)elements);
  return p;
}

/* After a timeout MPI may still write into a pending request's buffer when
 * the late peer arrives: that buffer is never freed (transport.h). */
static void release_half_buffer(float *p, int32_t status) {
  if (status != BP_ERR_PEER) free(p);
}

static int32_t all_reduce_half(uint16_t *data, uint64_t count, int32_t dtype, int32_t reduce_op, MPI_Op op,
                               double deadline, double timeout_s) {
  float *buffer = half_buffer(count < HALF_PIECE ? count : HALF_PIECE);
  int32_t status = BP_OK;
  uint64_t done = 0;
  if (!buffer) return BP_ERR_OUT_OF_MEMORY;
  do {
    const uint64_t n = count - done < HALF_PIECE ? count - done : HALF_PIECE;
    MPI_Request request;
    int previous, rc;
    widen(data + done, buffer, n, dtype);
    previous = choose_ring(n, (size_t)n * sizeof(float));
    rc = MPI_Iallreduce(MPI_IN_PLACE, buffer, (int)n, MPI_FLOAT, op, g.comm, &request);
    restore_algorithm(previous);
    if (rc != MPI_SUCCESS) {
      status = mpi_failed(rc, "MPI_Iallreduce");
      break;
    }
    status = wait_until(&request, deadline, timeout_s, "MPI_Iallreduce");
    if (status == BP_OK) finish_half(buffer, data + done, n, dtype, reduce_op);
    done += n;
  } while (status == BP_OK && done < count);
  release_half_buffer(buffer, status);
  return status;
}

static int32_t transport_all_reduce(void *data, uint64_t count, int32_t dtype, int32_t reduce_op,
                                    double timeout_s) {
  MPI_Datatype type;
  MPI_Op op;
  const double deadline = now_seconds() + timeout_s;
  int32_t status = require_active();
  if (status == BP_OK) status = types(dtype, reduce_op, &type, &op);
  if (status != BP_OK) return status;
  if (is_half(dtype)) return all_reduce_half(data, count, dtype, reduce_op, op, deadline, timeout_s);
  uint64_t done = 0;
  do {
    const uint64_t n = count - done < PIECE ? count - done : PIECE;
    MPI_Request request;
    const int previous = choose_ring(n, (size_t)n * element_size(dtype));
    int rc = MPI_Iallreduce(MPI_IN_PLACE, (char *)data + done * element_size(dtype), (int)n, type, op,
                            g.comm, &request);
    restore_algorithm(previous);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Iallreduce");
    status = wait_until(&request, deadline, timeout_s, "MPI_Iallreduce");
    done += n;
  } while (status == BP_OK && done < count);
  return status;
}

static int32_t transport_broadcast(void *data, uint64_t count, int32_t dtype, int32_t root, double timeout_s) {
  MPI_Datatype type;
  const double deadline = now_seconds() + timeout_s;
  int32_t status = require_active();
  if (status == BP_OK) status = types(dtype, 0, &type, NULL);
  if (status != BP_OK) return status;
  uint64_t done = 0;
  do {
    const uint64_t n = count - done < PIECE ? count - done : PIECE;
    MPI_Request request;
    int rc = MPI_Ibcast((char *)data + done * element_size(dtype), (int)n, type, root, g.comm, &request);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Ibcast");
    status = wait_until(&request, deadline, timeout_s, "MPI_Ibcast");
    done += n;
  } while (status == BP_OK && done < count);
  return status;
}

/* The gathering collectives take one count per rank and would need derived
 * datatypes past INT_MAX elements; 8 GB of float32 per rank is past what
 * they are used for. */
static int32_t check_count(uint64_t count, const char *call) {
  if (count <= (uint64_t)INT_MAX) return BP_OK;
  set_error("%s of %llu elements per rank: the MPI transport takes at most %d", call,
            (unsigned long long)count, INT_MAX);
  return BP_ERR_UNSUPPORTED;
}

static int32_t transport_all_gather(const void *input, void *output, uint64_t count, int32_t dtype,
                                    double timeout_s) {
  MPI_Datatype type;
  MPI_Request request;
  int rc;
  int32_t status = require_active();
  if (status == BP_OK) status = types(dtype, 0, &type, NULL);
  if (status == BP_OK) status = check_count(count, "all_gather");
  if (status != BP_OK) return status;
  rc = MPI_Iallgather(input, (int)count, type, output, (int)count, type, g.comm, &request);
  if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Iallgather");
  return wait_until(&request, now_seconds() + timeout_s, timeout_s, "MPI_Iallgather");
}

/* Rank r's input block r of size * count halves, reduced in float32. */
static int32_t reduce_scatter_half(const uint16_t *input, uint16_t *output, uint64_t count, int32_t dtype,
                                   int32_t reduce_op, MPI_Op op, double timeout_s) {
  const uint64_t all = count * (uint64_t)g.size;
  float *wide = half_buffer(all + count);
  MPI_Request request;
  int32_t status;
  int rc;
  if (!wide) return BP_ERR_OUT_OF_MEMORY;
  widen(input, wide, all, dtype);
  rc = MPI_Ireduce_scatter_block(wide, wide + all, (int)count, MPI_FLOAT, op, g.comm, &request);
  if (rc != MPI_SUCCESS) {
    free(wide);
    return mpi_failed(rc, "MPI_Ireduce_scatter_block");
  }
  status = wait_until(&request, now_seconds() + timeout_s, timeout_s, "MPI_Ireduce_scatter_block");
  if (status == BP_OK) finish_half(wide + all, output, count, dtype, reduce_op);
  release_half_buffer(wide, status);
  return status;
}

static int32_t transport_reduce_scatter(const void *input, void *output, uint64_t count, int32_t dtype,
                                        int32_t reduce_op, double timeout_s) {
  MPI_Datatype type;
  MPI_Op op;
  MPI_Request request;
  int rc;
  int32_t status = require_active();
  if (status == BP_OK) status = types(dtype, reduce_op, &type, &op);
  if (status == BP_OK) status = check_count(count, "reduce_scatter");
  if (status != BP_OK) return status;
  if (is_half(dtype)) return reduce_scatter_half(input, output, count, dtype, reduce_op, op, timeout_s);
  rc = MPI_Ireduce_scatter_block(input, output, (int)count, type, op, g.comm, &request);
  if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Ireduce_scatter_block");
  return wait_until(&request, now_seconds() + timeout_s, timeout_s, "MPI_Ireduce_scatter_block");
}

static const char *transport_last_error(void) { return g.error; }

static const bp_transport g_table = {
    sizeof(bp_transport),
    BP_TRANSPORT_VERSION,
    transport_init,
    transport_finalize,
    transport_topology,
    transport_library,
    transport_all_reduce,
    transport_broadcast,
    transport_all_gather,
    transport_reduce_scatter,
    transport_last_error,
};

EXPORT const bp_transport *bp_transport_get(void) { return &g_table; }
